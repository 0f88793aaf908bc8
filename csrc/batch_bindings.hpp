// The Python face of the observation and the batched core (batch_bindings.cpp), added to
// the module canasta_env._core by bindings.cpp; canasta_env/vector.py wraps it.
#pragma once

namespace nanobind {
class module_;
}

namespace canasta {
void bind_batch(nanobind::module_& m);
}
