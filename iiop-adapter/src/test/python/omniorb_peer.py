"""A non-Java peer for OmniOrbPeerTest: the forwarding recipe of docs/wire-format.md on omniORBpy.

Serves the test IDL's Hop; chainSame() forwards to the next hop. Prints "IOR <ior>" and serves
until killed. With "--no-forward" it does not forward the context (the control case).
"""
import sys, threading
import omniORB
from omniORB import CORBA, PortableServer
import org.dthreads.iiop.testidl as T, org__POA.dthreads.iiop.testidl as TP

# --- the recipe: examples/omniorb-python/dthreads_forward.py, used as shipped ---
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "examples", "omniorb-python"))
import dthreads_forward
dthreads_forward.install(oneway_operations={"fire"}, forward="--no-forward" not in sys.argv)
orb = CORBA.ORB_init([sys.argv[0], "-ORBendPoint", "giop:tcp:127.0.0.1:"])
# --- end of recipe ---

class Hop(TP.Hop):
    def seen(self): return 0
    def chain(self, nxt, me, depth): return [0] + (list(nxt.chain(me, nxt, depth - 1)) if depth > 0 else [])
    def chainSame(self, nxt, me, depth):
        if depth <= 0: return 0
        return nxt.chainSame(me, nxt, depth - 1)
    def originate(self, nxt, cls):
        # a context made by omniORB's own CDR encoder: byte-order octet 01 on x86, padding left as is
        dthreads_forward._current.context = omniORB.cdrMarshal(CORBA.TC_longlong, cls)
        try:
            return nxt.seen()
        finally:
            dthreads_forward._current.context = None
    def fire(self): pass
    def lastOneway(self): return 0
    def threadState(self): return []

poa = orb.resolve_initial_references("RootPOA")
poa._get_the_POAManager().activate()
ref = Hop()._this()
print("IOR " + orb.object_to_string(ref), flush=True)
orb.run()
