// Pulls in the system's libgpiod v1 header (Debian: libgpiod-dev).
#include <gpiod.h>
