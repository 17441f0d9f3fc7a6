package org.dthreads.monitor.internal.rewriter;

/** A class the rewriter will not touch: it is left as it was, and its objects stay native. */
final class CannotRewriteException extends RuntimeException {
    CannotRewriteException(String reason) {
        super(reason, null, false, false);
    }
}
