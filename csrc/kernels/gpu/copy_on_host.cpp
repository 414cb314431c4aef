// copy_'s CUDA kernel compiled for the host (kernels/gpu/Backend.h).
#include "kernels/gpu/Backend.h"
#include "kernels/gpu/copy.inc"
