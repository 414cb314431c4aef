// The indexing ops' CUDA kernels compiled for the host (kernels/gpu/Backend.h).
#include "kernels/gpu/Backend.h"
#include "kernels/gpu/indexing.inc"
