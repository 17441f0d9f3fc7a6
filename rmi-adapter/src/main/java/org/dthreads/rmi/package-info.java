/**
 * Thread identity over Java RMI (JRMP): stub retrofit and server-side binding.
 */
package org.dthreads.rmi;
