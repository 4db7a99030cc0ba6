// The Platform target's C shim; see include/CPlatform.h for why each function exists.
#define _GNU_SOURCE 1
#include <sys/mman.h>
#include <link.h>
#include <sys/prctl.h>
#include "CPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

int vigil_hci_socket(void) {
    return socket(VIGIL_AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, VIGIL_BTPROTO_HCI);
}

int vigil_hci_device_down(int fd, int index) {
    return ioctl(fd, VIGIL_HCIDEVDOWN, index);
}

int vigil_hci_bind(int fd, int index, int channel) {
    struct vigil_sockaddr_hci address;
    memset(&address, 0, sizeof address);
    address.hci_family = VIGIL_AF_BLUETOOTH;
    address.hci_dev = (uint16_t)index;
    address.hci_channel = (uint16_t)channel;
    return bind(fd, (const struct sockaddr *)&address, sizeof address);
}

int vigil_resolve_tcp(const char *host, const char *port, int passive, struct addrinfo **out) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    return getaddrinfo(host, port, &hints, out);
}

int vigil_resolve_numeric_tcp(const char *host, const char *port, struct addrinfo **out) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    return getaddrinfo(host, port, &hints, out);
}

int vigil_format_address(const struct sockaddr *address, socklen_t length, char *text, size_t capacity) {
    char host[NI_MAXHOST];
    char service[NI_MAXSERV];
    int error = getnameinfo(address, length, host, sizeof host, service, sizeof service,
                            NI_NUMERICHOST | NI_NUMERICSERV);
    if (error != 0) return -1;
    const char *format = address->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s";
    return snprintf(text, capacity, format, host, service) < (int)capacity ? 0 : -1;
}

int vigil_stream_socket(int family) {
    return socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

int vigil_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

int vigil_set_tcp_nodelay(int fd) {
    int on = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

int vigil_set_reuse_address(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
}

int vigil_socket_error(int fd) {
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return -1;
    return error;
}

int vigil_local_port(int fd) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) return -1;
    if (address.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&address)->sin_port);
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    errno = EAFNOSUPPORT;
    return -1;
}

ssize_t vigil_send(int fd, const void *bytes, size_t count) {
    return send(fd, bytes, count, MSG_NOSIGNAL);
}

ssize_t vigil_receive_packet(int fd, void *bytes, size_t capacity, int *truncated) {
    struct iovec vector = { .iov_base = bytes, .iov_len = capacity };
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    ssize_t n = recvmsg(fd, &message, MSG_DONTWAIT);
    *truncated = n >= 0 && (message.msg_flags & MSG_TRUNC) != 0;
    return n;
}

int vigil_is_socket(int fd) {
    struct stat status;
    if (fstat(fd, &status) != 0) return -1;
    return S_ISSOCK(status.st_mode) ? 1 : 0;
}

int vigil_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int vigil_open(const char *path, int flags, unsigned int mode) {
    return open(path, flags, (mode_t)mode);
}

long vigil_speed_for_baud(long baud) {
    // The rates a Raspberry Pi UART, USB serial adapters and PTYs accept, up to 3 Mbaud.
    switch (baud) {
    case 1200: return B1200;
    case 2400: return B2400;
    case 4800: return B4800;
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 115200: return B115200;
    case 230400: return B230400;
    case 460800: return B460800;
    case 500000: return B500000;
    case 576000: return B576000;
    case 921600: return B921600;
    case 1000000: return B1000000;
    case 1152000: return B1152000;
    case 1500000: return B1500000;
    case 2000000: return B2000000;
    case 2500000: return B2500000;
    case 3000000: return B3000000;
    default: return -1;
    }
}

int vigil_configure_raw_tty(int fd, long speed, int hardware_flow_control) {
    struct termios settings;
    if (tcgetattr(fd, &settings) != 0) return -1;
    cfmakeraw(&settings);
    settings.c_cflag |= CLOCAL | CREAD;
    if (hardware_flow_control) settings.c_cflag |= CRTSCTS;
    else settings.c_cflag &= ~(tcflag_t)CRTSCTS;
    // Non-blocking reads that return what is there: the poll loop decides when to read.
    settings.c_cc[VMIN] = 0;
    settings.c_cc[VTIME] = 0;
    if (speed >= 0) {
        if (cfsetispeed(&settings, (speed_t)speed) != 0) return -1;
        if (cfsetospeed(&settings, (speed_t)speed) != 0) return -1;
    }
    return tcsetattr(fd, TCSANOW, &settings);
}

int vigil_read_tty_settings(int fd, struct vigil_tty_settings *out) {
    struct termios s;
    if (tcgetattr(fd, &s) != 0) return -1;
    out->canonical = (s.c_lflag & ICANON) != 0;
    out->echo = (s.c_lflag & ECHO) != 0;
    out->signals = (s.c_lflag & ISIG) != 0;
    out->output_processing = (s.c_oflag & OPOST) != 0;
    out->input_cr_to_nl = (s.c_iflag & ICRNL) != 0;
    out->software_flow = (s.c_iflag & IXON) != 0;
    out->local = (s.c_cflag & CLOCAL) != 0;
    out->receiver_enabled = (s.c_cflag & CREAD) != 0;
    out->hardware_flow = (s.c_cflag & CRTSCTS) != 0;
    out->eight_bits = (s.c_cflag & CSIZE) == CS8;
    out->vmin = s.c_cc[VMIN];
    out->vtime = s.c_cc[VTIME];
    out->input_speed = (long)cfgetispeed(&s);
    out->output_speed = (long)cfgetospeed(&s);
    return 0;
}

int vigil_tty_exclusive(int fd) {
    return ioctl(fd, TIOCEXCL);
}

int vigil_open_pty_primary(char *path, size_t path_capacity) {
    int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return -1;
    if (grantpt(fd) != 0 || unlockpt(fd) != 0 || ptsname_r(fd, path, path_capacity) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int vigil_signalfd_open(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) {
        if (sigaddset(&set, signals[i]) != 0) return -1;
    }
    // Blocked first, so the default action (terminate) never runs: the signal waits in the fd.
    int error = pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int vigil_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    for (;;) {
        ssize_t n = read(fd, &info, sizeof info);
        if (n == (ssize_t)sizeof info) return (int)info.ssi_signo;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n >= 0) errno = EIO;  // the kernel always returns whole records; anything else is a bug
        return -1;
    }
}

int vigil_raise_in_this_thread(int signal) {
    int error = pthread_kill(pthread_self(), signal);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return 0;
}

int vigil_cpu_time(int64_t *user_microseconds, int64_t *system_microseconds) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
    *user_microseconds = (int64_t)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec;
    *system_microseconds = (int64_t)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec;
    return 0;
}

int vigil_name_this_thread(const char *name) {
    int error = pthread_setname_np(pthread_self(), name);
    if (error != 0) {
        errno = error;
        return -1;
    }
    return 0;
}

// The executable's read-only segments (code, read-only data), from its own program headers.
// Not one range from __executable_start to etext: lld leaves an unmapped gap between the
// read-only and the code segment of the aarch64 build, and madvise over a range with a hole
// fails with ENOMEM (after advising what is mapped), which read as a failure on every start.
// Only segments without PF_W: their pages were never written (RELRO lies in the writable one),
// so dropping them loses nothing.
static int vigil_drop_read_only_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    int *result = data;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W) != 0 || header->p_memsz == 0) continue;
        uintptr_t start = (uintptr_t)(info->dlpi_addr + header->p_vaddr) & ~(page - 1);
        uintptr_t end = ((uintptr_t)(info->dlpi_addr + header->p_vaddr + header->p_memsz) + page - 1) & ~(page - 1);
        if (madvise((void *)start, end - start, MADV_DONTNEED) != 0) *result = -1;
    }
    // The first object reported is the executable itself; shared libraries are not ours.
    return 1;
}

int vigil_drop_code_mappings(void) {
    // Code pages are clean file pages: dropping their mappings loses nothing, and the next
    // instruction fetch maps each page again from the page cache.
    int result = 0;
    dl_iterate_phdr(vigil_drop_read_only_segments, &result);
    return result;
}

int vigil_keep_code_in_small_pages(void) {
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) return -1;
    return vigil_drop_code_mappings();
}

/// Fills a sockaddr_un; 0, or -1 with ENAMETOOLONG (the kernel would silently truncate).
static int vigil_unix_address(const char *path, struct sockaddr_un *address) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof address->sun_path) {
        errno = length == 0 ? EINVAL : ENAMETOOLONG;
        return -1;
    }
    memcpy(address->sun_path, path, length + 1);
    return 0;
}

int vigil_unix_bind(int fd, const char *path) {
    struct sockaddr_un address;
    if (vigil_unix_address(path, &address) != 0) return -1;
    return bind(fd, (struct sockaddr *)&address, sizeof address);
}

int vigil_unix_connect(int fd, const char *path) {
    struct sockaddr_un address;
    if (vigil_unix_address(path, &address) != 0) return -1;
    return connect(fd, (struct sockaddr *)&address, sizeof address);
}

int vigil_socket_file(const char *path, uint64_t *device, uint64_t *inode) {
    struct stat info;
    if (lstat(path, &info) != 0) return -1;
    *device = (uint64_t)info.st_dev;
    *inode = (uint64_t)info.st_ino;
    return S_ISSOCK(info.st_mode) ? 1 : 0;
}
