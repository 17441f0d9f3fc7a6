package org.dthreads.rmi.internal;

/** The twinning loader of {@code RemoteInterfaceTwinnerTest}, for tests in other packages. */
public final class TwinningLoaderForTests extends ClassLoader {
    private final RemoteInterfaceTwinnerTest.TwinningLoader delegate;

    public TwinningLoaderForTests(ClassLoader parent) {
        super(parent);
        this.delegate = new RemoteInterfaceTwinnerTest.TwinningLoader(parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        return delegate.loadClass(name);
    }
}
