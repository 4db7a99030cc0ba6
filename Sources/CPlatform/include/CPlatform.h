#ifndef VIGIL_CPLATFORM_H
#define VIGIL_CPLATFORM_H
// C shims for the few Linux interfaces Swift cannot call directly (see Sources/Platform).
#endif
