"""torchlite's operator generator: native_functions.yaml -> typed model -> generated C++/Python."""
