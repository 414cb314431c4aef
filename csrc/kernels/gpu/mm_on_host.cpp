// The matrix products' CUDA kernels compiled for the host (kernels/gpu/Backend.h).
#include "kernels/gpu/Backend.h"
#include "kernels/gpu/mm.inc"
