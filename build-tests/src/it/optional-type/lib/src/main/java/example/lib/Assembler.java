package example.lib;

import example.extra.Left;
import example.extra.Part;
import example.extra.Right;
import java.lang.reflect.Method;

/** Like Drawer, but the merged types come from an optional dependency of lib that app does not have. */
public class Assembler {
    private int made;
    private StringBuilder label;

    public synchronized Part make(boolean left, Method describe) throws ReflectiveOperationException {
        Part p;
        if (left) {
            p = new Left();
        } else {
            p = new Right();
        }
        made++;
        label = new StringBuilder(String.valueOf(describe.invoke(p)));
        return p;
    }
}
