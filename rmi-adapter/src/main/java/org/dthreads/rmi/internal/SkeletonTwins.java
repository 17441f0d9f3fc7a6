package org.dthreads.rmi.internal;

import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.rmi.MarshalException;
import java.rmi.Remote;
import java.rmi.UnmarshalException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Server side of twins for implementations served through an rmic skeleton ({@code *_Skel}). Such a
 * skeleton knows only the hashes it was generated with; {@link SkeletonPatch} makes its
 * {@code dispatch} first offer a hash-dispatched call ({@code opnum < 0}) here. A twin of one of the
 * object's remote interfaces is served as {@code UnicastServerRef} serves a method without a skeleton:
 * arguments read in order (primitives with their own read, objects with {@code readObject}), the method
 * called, the result written to a normal return; an exception of the method is thrown to the caller of
 * {@code dispatch}, which marshals it as an exceptional return. Any other hash is left to the skeleton.
 *
 * <p>Thread-safe: the twin table is a {@link ClassValue}, computed once per implementation class.
 * Runs on the bootstrap path (skeletons of every loader call it); JDK types only.
 */
@SuppressWarnings("deprecation")
public final class SkeletonTwins {

    private static final ClassValue<Map<Long, Method>> TWINS = new ClassValue<>() {
        @Override
        protected Map<Long, Method> computeValue(Class<?> impl) {
            Map<Long, Method> twins = new HashMap<>();
            for (Class<?> remote : remoteInterfaces(impl)) {
                for (Method m : remote.getDeclaredMethods()) {
                    if (Twins.isTwinName(m.getName())) {
                        m.trySetAccessible();
                        twins.put(Twins.methodHash(m), m);
                    }
                }
            }
            return twins.isEmpty() ? Collections.emptyMap() : Map.copyOf(twins);
        }
    };

    private SkeletonTwins() {}

    /**
     * Serves the call if {@code hash} is a twin of {@code obj}'s remote interfaces.
     *
     * @return false if it is not (the skeleton goes on as generated); true once served
     * @throws Exception the twin's own exception, or the marshalling failure, as a skeleton throws them
     */
    public static boolean serve(Remote obj, java.rmi.server.RemoteCall call, long hash) throws Exception {
        Method twin = obj == null ? null : TWINS.get(obj.getClass()).get(hash);
        if (twin == null) {
            return false;
        }
        Class<?>[] types = twin.getParameterTypes();
        Object[] args = new Object[types.length];
        try {
            ObjectInput in = call.getInputStream();
            for (int i = 0; i < types.length; i++) {
                args[i] = read(in, types[i]);
            }
        } catch (IOException | ClassNotFoundException e) {
            throw new UnmarshalException("error unmarshalling arguments", e);
        } finally {
            call.releaseInputStream();
        }
        Object result;
        try {
            result = twin.invoke(obj, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw (Error) cause;
        }
        try {
            ObjectOutput out = call.getResultStream(true);
            write(out, twin.getReturnType(), result);
        } catch (IOException e) {
            throw new MarshalException("error marshalling return", e);
        }
        return true;
    }

    private static Object read(ObjectInput in, Class<?> type) throws IOException, ClassNotFoundException {
        if (!type.isPrimitive()) {
            return in.readObject();
        }
        if (type == int.class) {
            return in.readInt();
        } else if (type == long.class) {
            return in.readLong();
        } else if (type == boolean.class) {
            return in.readBoolean();
        } else if (type == byte.class) {
            return in.readByte();
        } else if (type == char.class) {
            return in.readChar();
        } else if (type == short.class) {
            return in.readShort();
        } else if (type == float.class) {
            return in.readFloat();
        }
        return in.readDouble();
    }

    private static void write(ObjectOutput out, Class<?> type, Object value) throws IOException {
        if (type == void.class) {
            return;
        }
        if (!type.isPrimitive()) {
            out.writeObject(value);
        } else if (type == int.class) {
            out.writeInt((Integer) value);
        } else if (type == long.class) {
            out.writeLong((Long) value);
        } else if (type == boolean.class) {
            out.writeBoolean((Boolean) value);
        } else if (type == byte.class) {
            out.writeByte((Byte) value);
        } else if (type == char.class) {
            out.writeChar((Character) value);
        } else if (type == short.class) {
            out.writeShort((Short) value);
        } else if (type == float.class) {
            out.writeFloat((Float) value);
        } else {
            out.writeDouble((Double) value);
        }
    }

    private static Set<Class<?>> remoteInterfaces(Class<?> impl) {
        Set<Class<?>> found = new HashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>();
        for (Class<?> c = impl; c != null; c = c.getSuperclass()) {
            Collections.addAll(todo, c.getInterfaces());
        }
        while (!todo.isEmpty()) {
            Class<?> i = todo.pop();
            if (Remote.class.isAssignableFrom(i) && found.add(i)) {
                Collections.addAll(todo, i.getInterfaces());
            }
        }
        return found;
    }
}
