// Sorting's CUDA kernels (kernels/gpu/sorting.inc).
#include "kernels/cuda/Backend.cuh"
#include "kernels/gpu/sorting.inc"
