"""The SDK: Memory and AsyncMemory, thin shells over the shared engine core."""
