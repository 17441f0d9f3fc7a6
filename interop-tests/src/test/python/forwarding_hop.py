"""A Python (omniORBpy) site in the middle of a zigzag: forward(route, index, trail) calls the next
hop of the route. With the dthreads recipe (examples/omniorb-python/dthreads_forward.py, used as
shipped) the chain keeps its identity; with --no-forward it does not. Prints "IOR <ior>" and serves
until its standard input closes."""
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "examples", "omniorb-python"))
import dthreads_forward

dthreads_forward.install(forward="--no-forward" not in sys.argv)

from omniORB import CORBA, PortableServer
import example.zigzag as Z
import example__POA.zigzag as ZP

orb = CORBA.ORB_init([sys.argv[0], "-ORBendPoint", "giop:tcp:127.0.0.1:"], CORBA.ORB_ID)


class Hop(ZP.Hop):
    def forward(self, route, index, trail):
        iors = route.split(" ")
        here = trail + "P@python"
        if index == len(iors) - 1:
            return here
        nxt = orb.string_to_object(iors[index + 1])._narrow(Z.Hop)
        return nxt.forward(route, index + 1, here + " > ")


poa = orb.resolve_initial_references("RootPOA")
poa._get_the_POAManager().activate()
ref = poa.servant_to_reference(Hop())
print("IOR " + orb.object_to_string(ref), flush=True)
threading.Thread(target=orb.run, daemon=True).start()
sys.stdin.read()  # until the wrapper site closes our input
orb.shutdown(False)
