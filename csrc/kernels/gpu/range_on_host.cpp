// The range factories' and tril/triu's CUDA kernels compiled for the host (kernels/gpu/Backend.h).
#include "kernels/gpu/Backend.h"
#include "kernels/gpu/range.inc"
