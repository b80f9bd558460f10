/* The one piece of compiled code in DPpackPy: where R keeps a double vector's values, so that
 * the Python core can read them in place instead of through a copy (see .to_py in
 * R/bridge.R). No arithmetic happens here. */

#include <stdint.h>
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

/* The address of the first value of the double vector x, as a double: a double holds every
 * address below 2^53 exactly, which covers the user-space addresses of x86-64 and AArch64;
 * NA for any other address, and the caller then copies the values instead. */
static SEXP double_address(SEXP x)
{
    if (TYPEOF(x) != REALSXP || XLENGTH(x) == 0)
        Rf_error("double_address() needs a non-empty double vector");
    uintptr_t address = (uintptr_t) REAL_RO(x);
    if (address >= ((uintptr_t) 1 << 53))
        return Rf_ScalarReal(NA_REAL);
    return Rf_ScalarReal((double) address);
}

static const R_CallMethodDef call_methods[] = {
    {"dppackpy_double_address", (DL_FUNC) &double_address, 1},
    {NULL, NULL, 0}
};

void R_init_DPpackPy(DllInfo *info)
{
    R_registerRoutines(info, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(info, FALSE);
    R_forceSymbols(info, TRUE);
}
