// The indexing ops' CUDA kernels (kernels/gpu/indexing.inc).
#include "kernels/cuda/Backend.cuh"
#include "kernels/gpu/indexing.inc"
