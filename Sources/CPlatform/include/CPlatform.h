#ifndef VIGIL_CPLATFORM_H
#define VIGIL_CPLATFORM_H
// C shims for the few Linux interfaces Swift cannot call directly (see Sources/Platform):
// variadic calls (ioctl, fcntl), the BlueZ socket ABI (no BlueZ headers are installed, so the
// constants and `struct sockaddr_hci` are declared here), signalfd, and termios details whose
// constants differ between C libraries. Every function returns -1 and leaves errno set on
// failure, like the system call it wraps, so Swift maps errors in one place (PlatformError).

#include <netdb.h>
#include <stdint.h>
#include <sys/eventfd.h>  // not in Swift's Glibc module: BackgroundJob's completion signal
#include <sys/types.h>

// Linux Bluetooth socket ABI (BlueZ lib/bluetooth/bluetooth.h and lib/bluetooth/hci.h;
// kernel include/net/bluetooth/hci_sock.h).
#define VIGIL_AF_BLUETOOTH 31
#define VIGIL_BTPROTO_HCI 1
#define VIGIL_HCI_CHANNEL_RAW 0
#define VIGIL_HCI_CHANNEL_USER 1
// HCIDEVDOWN = _IOW('H', 202, int): 0x400448CA on every Linux architecture Vigil targets.
#define VIGIL_HCIDEVDOWN 0x400448CAUL

/// `struct sockaddr_hci` from BlueZ lib/bluetooth/hci.h (6 bytes, no padding).
struct vigil_sockaddr_hci {
    uint16_t hci_family;   // sa_family_t: AF_BLUETOOTH
    uint16_t hci_dev;      // controller index: 0 for hci0
    uint16_t hci_channel;  // HCI_CHANNEL_USER for exclusive access
};

/// socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_HCI).
int vigil_hci_socket(void);
/// ioctl(fd, HCIDEVDOWN, index): the kernel refuses a user channel on a controller that is up.
int vigil_hci_device_down(int fd, int index);
/// bind(fd, { AF_BLUETOOTH, index, channel }).
int vigil_hci_bind(int fd, int index, int channel);

/// getaddrinfo for a TCP stream to host:port (numeric port); `passive` for a listening socket.
/// Returns 0 or an EAI_* code (see gai_strerror); free the list with freeaddrinfo.
int vigil_resolve_tcp(const char *host, const char *port, int passive, struct addrinfo **out);
/// getaddrinfo for a numeric host only (AI_NUMERICHOST): never asks a resolver, never blocks.
int vigil_resolve_numeric_tcp(const char *host, const char *port, struct addrinfo **out);
/// getnameinfo(NI_NUMERICHOST | NI_NUMERICSERV) as "1.2.3.4:80" or "[::1]:80".
int vigil_format_address(const struct sockaddr *address, socklen_t length, char *text, size_t capacity);
/// socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0).
int vigil_stream_socket(int family);
/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK).
int vigil_accept(int fd);
/// setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, 1).
int vigil_set_tcp_nodelay(int fd);
/// setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, 1).
int vigil_set_reuse_address(int fd);
/// getsockopt(fd, SOL_SOCKET, SO_ERROR): the outcome of a non-blocking connect, or -1.
int vigil_socket_error(int fd);
/// The local port of a bound IPv4 or IPv6 socket, or -1.
int vigil_local_port(int fd);
/// send(fd, bytes, count, MSG_NOSIGNAL): a peer that closed must not kill us with SIGPIPE.
ssize_t vigil_send(int fd, const void *bytes, size_t count);
/// recvmsg(fd, one packet): sets *truncated to 1 when the packet was longer than `capacity`
/// (the kernel drops the rest, so a caller must not carry on as if nothing happened).
ssize_t vigil_receive_packet(int fd, void *bytes, size_t capacity, int *truncated);
/// 1 if `fd` is a socket, 0 if not, -1 on error.
int vigil_is_socket(int fd);

/// fcntl(fd, F_SETFL, flags | O_NONBLOCK).
int vigil_set_nonblocking(int fd);
/// open(path, flags, mode): open is variadic in C.
int vigil_open(const char *path, int flags, unsigned int mode);

/// The termios speed constant for `baud`, or -1 if the C library has none for it.
long vigil_speed_for_baud(long baud);
/// Raw 8N1 mode (cfmakeraw), CLOCAL | CREAD, optional CRTSCTS, VMIN = 0, VTIME = 0, `speed`
/// (from vigil_speed_for_baud) in both directions; speed < 0 keeps the current speed.
int vigil_configure_raw_tty(int fd, long speed, int hardware_flow_control);
/// What the kernel kept after vigil_configure_raw_tty, for tests and diagnostics.
struct vigil_tty_settings {
    int canonical;         // ICANON
    int echo;              // ECHO
    int signals;           // ISIG
    int output_processing; // OPOST
    int input_cr_to_nl;    // ICRNL
    int software_flow;     // IXON
    int local;             // CLOCAL
    int receiver_enabled;  // CREAD
    int hardware_flow;     // CRTSCTS
    int eight_bits;        // CS8
    int vmin;
    int vtime;
    long input_speed;      // termios speed constant (B115200, ...)
    long output_speed;
};
int vigil_read_tty_settings(int fd, struct vigil_tty_settings *out);
/// ioctl(fd, TIOCEXCL): further open(2)s of the tty fail with EBUSY (except for root).
int vigil_tty_exclusive(int fd);

/// posix_openpt + grantpt + unlockpt + ptsname_r. Returns the primary fd (non-blocking,
/// close-on-exec) and writes the secondary's path into `path`.
int vigil_open_pty_primary(char *path, size_t path_capacity);

/// Blocks `signals` in the calling thread (pthread_sigmask) and returns a non-blocking
/// signalfd for them.
int vigil_signalfd_open(const int *signals, int count);
/// Reads one signal from a signalfd: its number, 0 if none is pending, -1 on error.
int vigil_signalfd_read(int fd);
/// Sends `signal` to the calling thread only (so tests never hit another thread's default action).
int vigil_raise_in_this_thread(int signal);

/// getrusage(RUSAGE_SELF): user and system CPU time in microseconds.
/// Disables transparent huge pages for this process (PR_SET_THP_DISABLE) and drops the mappings
/// of its code, so code is mapped again page by page. Why: on kernels whose page cache holds the
/// executable in 2 MiB folios (ext4 with large folios, Linux 6.16+), code is otherwise mapped
/// 2 MiB at a time and resident memory counts whole huge pages of code never run — 13.8 MB
/// against 9.3 MB measured for the same binary. 0 on success, -1 with errno.
int vigil_keep_code_in_small_pages(void);

/// Drops the mappings of this executable's code (madvise MADV_DONTNEED over its text): pages
/// come back from the page cache as they are next run. Called once start-up is over, so that
/// resident memory counts the code the appliance runs, not argument parsing, configuration,
/// board profiles and controller bring-up, which never run again. 0 or -1 with errno.
int vigil_drop_code_mappings(void);

int vigil_cpu_time(int64_t *user_microseconds, int64_t *system_microseconds);

/// pthread_setname_np(pthread_self(), name) (a GNU extension the Swift Glibc module does not
/// export): names the calling thread for `top -H` and /proc/self/task/*/comm. At most 15
/// characters. Returns 0, or -1 with errno set.
int vigil_name_this_thread(const char *name);

/// bind(fd, { AF_UNIX, path }): -1 with ENAMETOOLONG when `path` does not fit sun_path.
int vigil_unix_bind(int fd, const char *path);
/// connect(fd, { AF_UNIX, path }): -1 with ENAMETOOLONG when `path` does not fit sun_path.
int vigil_unix_connect(int fd, const char *path);
/// 1 if `path` names a socket (lstat, links not followed), 0 if something else, -1 with errno
/// (ENOENT: nothing there). Writes its device and inode, to recognise the same file later.
int vigil_socket_file(const char *path, uint64_t *device, uint64_t *inode);

#endif
