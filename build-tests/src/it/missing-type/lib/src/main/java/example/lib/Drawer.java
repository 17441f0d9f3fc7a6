package example.lib;

import example.base.Circle;
import example.base.Shape;
import example.base.Square;

/** A synchronized method whose frames merge two types of another jar: rewriting it needs their super-type. */
public class Drawer {
    private int drawn;

    public synchronized Shape pick(boolean round) {
        Shape s;
        if (round) {
            s = new Circle();
        } else {
            s = new Square();
        }
        drawn++;
        return s;
    }
}
