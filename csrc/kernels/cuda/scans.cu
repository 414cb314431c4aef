// The scans' CUDA kernels (kernels/gpu/scans.inc).
#include "kernels/cuda/Backend.cuh"
#include "kernels/gpu/scans.inc"
