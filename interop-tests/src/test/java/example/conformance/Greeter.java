package example.conformance;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A remote interface: the instrumenter adds its JRMP twins. */
public interface Greeter extends Remote {
    String greet(String name) throws RemoteException;
}
