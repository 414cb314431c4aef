// The range factories' and tril/triu's CUDA kernels (kernels/gpu/range.inc).
#include "kernels/cuda/Backend.cuh"
#include "kernels/gpu/range.inc"
