#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// How this executable's code is mapped.
public enum CodePages {
    /// Maps code in small pages from here on and drops what was mapped before: see
    /// `vigil_keep_code_in_small_pages` in CPlatform.h for why (2 MiB page-cache folios made
    /// resident memory follow the binary's size rather than the code that runs). Called first
    /// thing in `main`; a kernel that refuses is logged by the caller and changes nothing else.
    public static func keepSmall() throws(PlatformError) {
        guard vigil_keep_code_in_small_pages() == 0 else {
            throw .fromErrno("prctl(PR_SET_THP_DISABLE) and madvise(code, MADV_DONTNEED)")
        }
    }

    /// Drops the mappings of code that ran at start-up (see `vigil_drop_code_mappings`): what
    /// the appliance runs next is mapped again from the page cache, on use. Nothing is lost:
    /// code pages are clean. Failure changes nothing but the figure, so it is only reported.
    public static func dropStartupCode() throws(PlatformError) {
        guard vigil_drop_code_mappings() == 0 else { throw .fromErrno("madvise(code, MADV_DONTNEED)") }
    }
}
