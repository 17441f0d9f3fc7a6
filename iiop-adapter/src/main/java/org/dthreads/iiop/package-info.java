/**
 * Thread identity over CORBA and RMI-IIOP with Portable Interceptors: register
 * {@link org.dthreads.iiop.DThreadsOrbInitializer} on the ORB. Everything else in this module
 * ({@code org.dthreads.iiop.internal}) is not public API.
 */
package org.dthreads.iiop;
