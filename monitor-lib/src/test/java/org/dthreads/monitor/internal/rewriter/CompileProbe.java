package org.dthreads.monitor.internal.rewriter;

import java.lang.reflect.Method;
import org.dthreads.monitor.internal.rewriter.fixtures.Counter;
import org.dthreads.monitor.internal.rewriter.fixtures.GoldenShapes;

/**
 * Child JVM of {@link RewrittenCodeCompilesTest}: runs rewritten synchronized methods and blocks hot
 * enough for C1 and C2 (the parent passes {@code -Xbatch}, so each compilation finishes before the loop
 * goes on), then prints {@code done}.
 */
public final class CompileProbe {
    public static void main(String[] args) throws Exception {
        long sum = 0;
        for (Class<?> type : new Class<?>[] {Counter.class, GoldenShapes.class}) {
            Object rewritten = MonitorRewriterTest.newRewritten(type);
            for (String name : new String[] {"increment", "get", "incrementInBlock", "getBlockValue", "bump",
                    "nestedBump", "tryFinallyInside"}) {
                Method m = find(rewritten.getClass(), name);
                if (m == null) {
                    continue;
                }
                for (int i = 0; i < 30_000; i++) {
                    Object r = m.invoke(rewritten);
                    sum += r instanceof Integer n ? n : 1;
                }
            }
        }
        System.out.println("done " + sum);
    }

    private static Method find(Class<?> c, String name) {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 0) {
                return m;
            }
        }
        return null;
    }
}
