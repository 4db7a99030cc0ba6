#ifndef VIGIL_CGPIO_H
#define VIGIL_CGPIO_H
// The kernel's GPIO character-device uAPI v2 (Linux 5.10 and later), for Sources/Platform/GPIO.
// Swift cannot expand the _IOR/_IOWR ioctl numbers of <linux/gpio.h> (from Debian's
// linux-libc-dev, also in the arm64 sysroot), so each ioctl is one function here. The structures
// and the v1/v2 story are in docs/gpio-uapi.md. Every function returns 0 (or a descriptor) on
// success and -errno on failure: the error travels in the return value, not in errno, which
// Swift code between the call and the check could change.

#include <linux/gpio.h>
#include <stdint.h>

/// GPIO_GET_CHIPINFO_IOCTL on a chip descriptor: its name, label and line count. Also how a
/// descriptor is recognised as a GPIO chip at all (anything else answers -ENOTTY or -EINVAL).
int vigil_gpio_chip_info(int chip_fd, struct gpiochip_info *info);

/// GPIO_V2_GET_LINEINFO_IOCTL for `offset`: the line's name, consumer and flags, without
/// requesting it (to name whoever holds a busy line).
int vigil_gpio_line_info(int chip_fd, uint32_t offset, struct gpio_v2_line_info *info);

/// Fills `request` for one line: `offsets[0]`, `consumer` (cut to 31 bytes), `config.flags`,
/// and, when `output_value` is 0 or 1, an OUTPUT_VALUES attribute for the line so an output
/// starts at that level atomically with the request (negative: no attribute). Every other
/// byte is zero, as the kernel requires of padding. Pure: no system call, so it is tested
/// without a chip.
void vigil_gpio_line_request_init(struct gpio_v2_line_request *request, uint32_t offset, const char *consumer,
                                  uint64_t flags, int output_value, uint32_t event_buffer_size);

/// GPIO_V2_GET_LINE_IOCTL: requests the lines `request` describes. Returns the request's new
/// descriptor (O_CLOEXEC, blocking until made non-blocking) or -errno.
int vigil_gpio_get_line(int chip_fd, struct gpio_v2_line_request *request);

/// GPIO_V2_LINE_SET_VALUES_IOCTL on a line request's descriptor: sets the logical value of
/// the requested line at index 0 (the only one Vigil requests per descriptor).
int vigil_gpio_set_value(int line_fd, int value);

/// GPIO_V2_LINE_GET_VALUES_IOCTL for the line at index 0: its logical value, 0 or 1, or -errno.
int vigil_gpio_get_value(int line_fd);

#endif
