package shapes;

/** Inner, anonymous and local classes locking their outer instance and themselves. */
public class InnerClasses {
    private int count;

    class Inner {
        private int own;

        void incOuter() {
            synchronized (InnerClasses.this) {
                count = Exclusion.racyIncrement(count);
            }
        }

        synchronized void incOwn() {
            own = Exclusion.racyIncrement(own);
        }
    }

    public static String run() {
        final InnerClasses outer = new InnerClasses();
        final Inner inner = outer.new Inner();
        int f1 = Exclusion.hammer(300, new Runnable() {
            public void run() {
                inner.incOuter();
                inner.incOwn();
            }
        });
        Runnable anonymous = new Runnable() {
            private int calls;

            public synchronized void run() {
                calls = Exclusion.racyIncrement(calls);
            }

            @Override
            public synchronized String toString() {
                return "calls=" + calls + " holds=" + Thread.holdsLock(this);
            }
        };
        int f2 = Exclusion.hammer(300, anonymous);
        class Local {
            int n;

            int add(int k) {
                synchronized (this) {
                    n += k;
                    return n;
                }
            }
        }
        Local local = new Local();
        local.add(3);
        return "outer=" + outer.count + " inner=" + inner.own + " " + anonymous + " local=" + local.add(4) + " failures=" + (f1 + f2);
    }
}
