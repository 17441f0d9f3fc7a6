package example.lib;

import example.base.Circle;
import example.base.Shape;
import example.base.Square;
import java.lang.reflect.Method;

/**
 * A synchronized method whose frames merge two types of another jar and that the rewriter computes frames for
 * (an object under construction across the reflective call it guards, so the compiler's frames cannot be
 * kept): rewriting it needs their super-type.
 */
public class Drawer {
    private int drawn;
    private StringBuilder label;

    public synchronized Shape pick(boolean round, Method describe) throws ReflectiveOperationException {
        Shape s;
        if (round) {
            s = new Circle();
        } else {
            s = new Square();
        }
        drawn++;
        label = new StringBuilder(String.valueOf(describe.invoke(s)));
        return s;
    }
}
