package org.dthreads.rmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.rmi.fixture.Echo;
import org.dthreads.rmi.fixture.EchoImpl;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;
import org.objectweb.asm.util.Textifier;
import org.objectweb.asm.util.TraceMethodVisitor;

class RemoteInterfaceTwinnerTest {

    static byte[] bytesOf(Class<?> type) throws IOException {
        try (InputStream in = type.getResourceAsStream(type.getSimpleName() + ".class")) {
            return in.readAllBytes();
        }
    }

    static byte[] twinned() throws IOException {
        return RmiTransformer.twin(new ClassReader(bytesOf(Echo.class)), "org/dthreads/rmi/fixture/Echo");
    }

    @Test
    void twinnedInterfacePassesTheAsmVerifier() throws Exception {
        StringWriter problems = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(twinned()), RemoteInterfaceTwinnerTest.class.getClassLoader(), false,
                new PrintWriter(problems));
        assertEquals("", problems.toString());
    }

    @Test
    void twinOfEchoMatchesTheGoldenText() throws Exception {
        org.objectweb.asm.tree.ClassNode node = new org.objectweb.asm.tree.ClassNode();
        new ClassReader(twinned()).accept(node, 0);
        Textifier textifier = new Textifier();
        node.methods.stream().filter(m -> m.name.equals("concat-dthreads")).findFirst().orElseThrow()
                .accept(new TraceMethodVisitor(textifier));
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            textifier.print(out);
        }
        String golden;
        try (InputStream in = getClass().getResourceAsStream("/golden/concat-twin.txt")) {
            golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertEquals(golden.strip(), text.toString().strip());
    }

    @Test
    void aTwinnedInterfaceIsNotTwinnedAgain() throws Exception {
        assertNull(RmiTransformer.twin(new ClassReader(twinned()), "org/dthreads/rmi/fixture/Echo"));
    }

    @Test
    void twinsLoadInTheJvmBindTheCallersClassAndRestoreIt() throws Throwable {
        TwinningLoader loader = new TwinningLoader(getClass().getClassLoader());
        Class<?> echo = loader.loadClass(Echo.class.getName());
        Object impl = loader.loadClass(EchoImpl.class.getName()).getConstructor().newInstance();
        long caller = ThreadClass.of(0x51, 0x7);
        long mine = DThreads.currentClass();

        Method callerClassTwin = echo.getMethod("callerClass-dthreads", long.class);
        assertEquals(caller, (long) callerClassTwin.invoke(impl, caller));
        assertEquals(mine, DThreads.currentClass(), "binding restored after the call");

        assertEquals("ab", echo.getMethod("concat-dthreads", long.class, String.class, String.class).invoke(impl, caller, "a", "b"));
        assertEquals(1 + 2L + 0.5, (double) echo.getMethod("mix-dthreads", long.class, int.class, long.class, double.class,
                boolean.class).invoke(impl, caller, 1, 2L, 0.5, true));
        assertEquals(List.of(1, 2, 3), echo.getMethod("sorted-dthreads", long.class, List.class).invoke(impl, caller, List.of(3, 1, 2)));

        Method failTwin = echo.getMethod("fail-dthreads", long.class, String.class);
        InvocationTargetException thrown = assertThrows(InvocationTargetException.class, () -> failTwin.invoke(impl, caller, "boom"));
        assertEquals("boom", thrown.getCause().getMessage());
        assertEquals(mine, DThreads.currentClass(), "binding restored after an exception");
        assertEquals(List.of(java.rmi.RemoteException.class.getName(), "org.dthreads.rmi.fixture.EchoException"),
                java.util.Arrays.stream(failTwin.getExceptionTypes()).map(Class::getName).toList());
    }

    @Test
    void anInvalidCallerClassIsServedAsAFreshClass() throws Throwable {
        TwinningLoader loader = new TwinningLoader(getClass().getClassLoader());
        Class<?> echo = loader.loadClass(Echo.class.getName());
        Object impl = loader.loadClass(EchoImpl.class.getName()).getConstructor().newInstance();
        long seen = (long) echo.getMethod("callerClass-dthreads", long.class).invoke(impl, 0L);
        assertTrue(ThreadClass.isValid(seen));
        assertEquals(DThreads.siteId(), ThreadClass.siteId(seen));
        assertTrue(seen != DThreads.currentClass());
    }

    @Test
    void remoteHierarchyIsReadFromBytes() {
        ClassLoader loader = getClass().getClassLoader();
        assertTrue(RemoteHierarchy.extendsRemote(new String[] {"java/rmi/Remote"}, loader));
        assertTrue(RemoteHierarchy.extendsRemote(new String[] {"org/dthreads/rmi/fixture/Echo"}, loader));
        assertTrue(!RemoteHierarchy.extendsRemote(new String[] {"java/lang/Runnable"}, loader));
        assertTrue(!RemoteHierarchy.extendsRemote(new String[] {"no/such/Type"}, loader));
        // java.*: decided from the JDK's list, without reading; javax.*: read (application jars define some)
        assertTrue(RemoteHierarchy.extendsRemote(new String[] {"java/rmi/registry/Registry"}, loader));
        assertTrue(RemoteHierarchy.extendsRemote(new String[] {"java/rmi/dgc/DGC"}, loader));
        assertTrue(!RemoteHierarchy.extendsRemote(new String[] {"java/io/Serializable"}, loader));
        assertTrue(RemoteHierarchy.extendsRemote(new String[] {"javax/management/remote/rmi/RMIServer"}, loader));
        assertTrue(!RemoteHierarchy.extendsRemote(new String[] {"javax/management/DynamicMBean"}, loader));
    }

    /** Loads the fixture classes itself, twinning remote interfaces on the way. */
    static final class TwinningLoader extends ClassLoader {
        TwinningLoader(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (!name.startsWith("org.dthreads.rmi.fixture.")) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c != null) {
                    return c;
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    if (in == null) {
                        throw new ClassNotFoundException(name); // RMI probes for *_Stub classes
                    }
                    byte[] bytes = in.readAllBytes();
                    ClassReader reader = new ClassReader(bytes);
                    if ((reader.getAccess() & Opcodes.ACC_INTERFACE) != 0) {
                        byte[] twinned = RmiTransformer.twin(reader, reader.getClassName());
                        assertNotNull(twinned, name);
                        bytes = twinned;
                    }
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }
}
