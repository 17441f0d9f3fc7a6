package example.lib;

import example.extra.Left;
import example.extra.Part;
import example.extra.Right;

/** Like Drawer, but the merged types come from an optional dependency of lib that app does not have. */
public class Assembler {
    private int made;

    public synchronized Part make(boolean left) {
        Part p;
        if (left) {
            p = new Left();
        } else {
            p = new Right();
        }
        made++;
        return p;
    }
}
