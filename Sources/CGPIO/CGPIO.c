// The ioctls of the GPIO uAPI v2; see include/CGPIO.h and docs/gpio-uapi.md.
#include "CGPIO.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

static int result(int value) { return value < 0 ? -errno : value; }

int vigil_gpio_chip_info(int chip_fd, struct gpiochip_info *info) {
    memset(info, 0, sizeof *info);
    return result(ioctl(chip_fd, GPIO_GET_CHIPINFO_IOCTL, info));
}

int vigil_gpio_line_info(int chip_fd, uint32_t offset, struct gpio_v2_line_info *info) {
    // The kernel refuses a request whose padding is not zero.
    memset(info, 0, sizeof *info);
    info->offset = offset;
    return result(ioctl(chip_fd, GPIO_V2_GET_LINEINFO_IOCTL, info));
}

void vigil_gpio_line_request_init(struct gpio_v2_line_request *request, uint32_t offset, const char *consumer,
                                  uint64_t flags, int output_value, uint32_t event_buffer_size) {
    memset(request, 0, sizeof *request);
    request->offsets[0] = offset;
    request->num_lines = 1;
    // The kernel reads at most GPIO_MAX_NAME_SIZE bytes and terminates the string itself;
    // the memset leaves the last byte 0 here too.
    strncpy(request->consumer, consumer, sizeof request->consumer - 1);
    request->config.flags = flags;
    if (output_value >= 0) {
        struct gpio_v2_line_config_attribute *attribute = &request->config.attrs[0];
        attribute->attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
        attribute->attr.values = output_value ? 1 : 0;  // bit i: the line at offsets[i]
        attribute->mask = 1;                            // applies to offsets[0] only
        request->config.num_attrs = 1;
    }
    request->event_buffer_size = event_buffer_size;
}

int vigil_gpio_get_line(int chip_fd, struct gpio_v2_line_request *request) {
    if (ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, request) < 0) return -errno;
    return request->fd;
}

int vigil_gpio_set_value(int line_fd, int value) {
    struct gpio_v2_line_values values = { .bits = value ? 1 : 0, .mask = 1 };
    return result(ioctl(line_fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &values));
}

int vigil_gpio_get_value(int line_fd) {
    struct gpio_v2_line_values values = { .bits = 0, .mask = 1 };
    if (ioctl(line_fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &values) < 0) return -errno;
    return (int)(values.bits & 1);
}
