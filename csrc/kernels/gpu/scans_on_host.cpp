// The scans' CUDA kernels compiled for the host (kernels/gpu/Backend.h).
#include "kernels/gpu/Backend.h"
#include "kernels/gpu/scans.inc"
