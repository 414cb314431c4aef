// The random ops' CUDA kernels (kernels/gpu/random.inc).
#include "kernels/cuda/Backend.cuh"
#include "kernels/gpu/random.inc"
