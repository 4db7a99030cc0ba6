#include "CPlatform.h"
