/**
 * Not public API: the JRMP retrofit (twin methods, their server-side binding, the client hook).
 * May change in any release without notice.
 */
package org.dthreads.rmi.internal;
