/* A Python interpreter linked with libkiln.a, its kiln_* symbols exported (-rdynamic): the
 * Python module's tests run against the library without libkiln.so (KILN_LIBRARY=- makes the
 * module use the running program's symbols). */
#include <Python.h>

int main(int argc, char** argv) {
  return Py_BytesMain(argc, argv);
}
