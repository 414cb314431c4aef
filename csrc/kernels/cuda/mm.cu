// The matrix products' CUDA kernels (kernels/gpu/mm.inc).
#include "kernels/cuda/Backend.cuh"
#include "kernels/gpu/mm.inc"
