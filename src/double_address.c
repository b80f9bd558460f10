/* The one piece of compiled code in DPpackPy: where R keeps a double vector's values, or a
 * data.frame's columns, so that the Python core can read them in place instead of through a
 * copy (see .to_py and .design_to_py in R/bridge.R). No arithmetic happens here. */

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

/* The addresses of the values of the columns of the list x (a data.frame's columns), as a
 * double vector: of a double column's doubles, of an integer column's 32-bit integers; NA
 * for a column of another type, an empty one, or one at an address a double does not hold
 * (see double_address). The caller decides which columns may be read in place. */
static SEXP column_addresses(SEXP x)
{
    if (TYPEOF(x) != VECSXP)
        Rf_error("column_addresses() needs a list");
    R_xlen_t p = XLENGTH(x);
    SEXP out = PROTECT(Rf_allocVector(REALSXP, p));
    for (R_xlen_t j = 0; j < p; j++) {
        SEXP column = VECTOR_ELT(x, j);
        uintptr_t address = 0;
        if (XLENGTH(column) > 0) {
            if (TYPEOF(column) == REALSXP)
                address = (uintptr_t) REAL_RO(column);
            else if (TYPEOF(column) == INTSXP)
                address = (uintptr_t) INTEGER_RO(column);
        }
        REAL(out)[j] = (address == 0 || address >= ((uintptr_t) 1 << 53))
            ? NA_REAL : (double) address;
    }
    UNPROTECT(1);
    return out;
}

static const R_CallMethodDef call_methods[] = {
    {"dppackpy_double_address", (DL_FUNC) &double_address, 1},
    {"dppackpy_column_addresses", (DL_FUNC) &column_addresses, 1},
    {NULL, NULL, 0}
};

void R_init_DPpackPy(DllInfo *info)
{
    R_registerRoutines(info, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(info, FALSE);
    R_forceSymbols(info, TRUE);
}
