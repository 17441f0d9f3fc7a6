package org.dthreads.monitor;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class whose monitor operations the dthreads rewriter replaced by calls to {@link Monitors}. The
 * rewriter adds it; the runtime reads it to decide that instances of the class (and its {@code Class}
 * object) use emulated monitors. See {@link Monitors#isEmulated(Object)}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Rewritten {}
