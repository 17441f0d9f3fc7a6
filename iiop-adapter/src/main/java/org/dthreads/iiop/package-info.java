/**
 * Thread identity over CORBA and RMI-IIOP with Portable Interceptors.
 */
package org.dthreads.iiop;
