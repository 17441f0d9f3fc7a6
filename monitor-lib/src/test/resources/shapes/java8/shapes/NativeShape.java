package shapes;

/** A synchronized native method: left native and synchronized by the rewriter. */
public class NativeShape {
    public synchronized native int nativeOp(int x);

    public static synchronized native void staticNativeOp();

    public synchronized int javaOp(int x) {
        return x * 2;
    }

    public static String run() {
        NativeShape s = new NativeShape();
        String outcome;
        try {
            outcome = "native=" + s.nativeOp(1);
        } catch (UnsatisfiedLinkError e) {
            outcome = "native=unlinked";
        }
        return outcome + " java=" + s.javaOp(21);
    }
}
