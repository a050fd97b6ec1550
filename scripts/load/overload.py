#!/usr/bin/env python3
"""Overload scenarios against the sample app, from other processes on loopback only, each bounded in time.

Starts the app (sample-app/target/offload-sample-app.jar, built by `mvn -B -q -DskipTests -pl sample-app -am
package`) on free local ports, runs one scenario, stops the app, and prints a Markdown summary (also written to
--out). Python 3 standard library only.

  scripts/load/overload.py flood     [--seconds 60] [--clients 32] [--paths 67108864]
      heavy Monte Carlo jobs from CLIENTS threads, as fast as they are answered, plus one light probe (a 1-option
      price request every 50 ms); light latency p50/p99/max, heavy status codes, then every accepted job polled to
      its end: none may fail for lack of a stream.
  scripts/load/overload.py bodies    [--count 4] [--megabytes 100]
      COUNT concurrent bodies of MEGABYTES each to the price endpoint: status and time of each, heap after.
  scripts/load/overload.py slowbody  [--connections 250] [--seconds 40] [--interval 5]
      CONNECTIONS clients each sending a body one byte every INTERVAL seconds (below the 2 s connection-timeout, e.g.
      --interval 1.9 --connections 4, they keep their connections; each reconnects when answered or closed), while
      price and health are probed: the price probe must not fail, the slow clients get 408 or a closed connection.
  scripts/load/overload.py startup
      the first price request's time, sent as soon as health (readiness included) is UP, then nine more.
  scripts/load/overload.py sigterm   [--seconds 20] [--clients 32]
      the flood, then SIGTERM to the app: time to exit, every in-flight request answered (a status, not a reset),
      every accepted job DONE or FAILED with the shutdown as its reason (read from the app's log).
  scripts/load/overload.py amplify   [--count 1] [--seconds 20]
      COUNT concurrent price requests whose body is 1 MB of empty options ({"options":[{},{},...]}, just under the
      body limit), with a light probe (a 1-option price every 50 ms): status, size and time of each answer, the
      probe's latency, heap used before, at its highest (sampled every 100 ms) and after.
  scripts/load/overload.py batches   [--seconds 30] [--clients 32]
      CLIENTS threads posting 4,096-option batches as fast as they are answered: status counts, latency of the 200s
      and of the 503s (admission sheds at the door).
  scripts/load/overload.py fairness  [--seconds 60] [--clients 8] [--paths 16777216]
      CLIENTS threads of one greedy tenant (X-Tenant-Id: greedy) posting Monte Carlo jobs with no pause, and one
      polite tenant that waits Retry-After after each 429 or 503: jobs each got. Run the app with
      `-- --sample.tenants.header=X-Tenant-Id`.
  scripts/load/overload.py keepalive [--connections 16]
      CONNECTIONS kept-alive connections each make a request, SIGTERM goes to the app, then each sends its next
      request on the same connection: answered, closed before the request, or lost (sent, no answer).

Extra app arguments go after `--`, e.g. `-- --offload.backend=cuda`. JAVA names the java command, JAVA_OPTS adds JVM
options, APP_CLASSPATH runs the app from a class path instead of the jar.
"""
import argparse
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

JAR = os.path.join(os.path.dirname(__file__), '..', '..', 'sample-app', 'target', 'offload-sample-app.jar')
OPTION = {"spot": 100, "strike": 95, "maturity": 1, "rate": 0.03, "volatility": 0.2}


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class App:
    def __init__(self, extra):
        self.port, self.management = free_port(), free_port()
        self.log_path = os.path.join(tempfile.gettempdir(), f'offload-load-{os.getpid()}.log')
        self.log = open(self.log_path, 'w')
        java = os.environ.get('JAVA', 'java')
        # APP_CLASSPATH runs the app from classes and jars (the GPU machine's pack) instead of the repackaged jar.
        launch = (['-cp', os.environ['APP_CLASSPATH'], 'dev.offload.sample.OffloadSampleApplication']
                  if os.environ.get('APP_CLASSPATH') else ['-jar', JAR])
        self.process = subprocess.Popen([java, *os.environ.get('JAVA_OPTS', '').split(), *launch,
                                         f'--server.port={self.port}', f'--management.server.port={self.management}',
                                         *extra], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                if request('GET', self.management, '/actuator/health', timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise SystemExit('the app did not start; see ' + self.log_path)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()


def request(method, port, path, body=None, timeout=30, headers=None):
    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=timeout)
    try:
        data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
        connection.request(method, path, body=data, headers={'Content-Type': 'application/json',
                                                               'Accept': 'application/json', **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read().decode(errors='replace')
    finally:
        connection.close()


def percentile(values, p):
    if not values:
        return float('nan')
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


def summarize_light(latencies, failures):
    ms = [v * 1000 for v in latencies]
    over1 = sum(1 for v in ms if v > 1000)
    over2 = sum(1 for v in ms if v > 2000)
    return (f'| light requests | {len(ms)} answered, {failures} failed |\n'
            f'| light p50 / p99 / max | {percentile(ms, 0.5):.0f} / {percentile(ms, 0.99):.0f} / '
            f'{max(ms) if ms else float("nan"):.0f} ms |\n'
            f'| light over the 1 s deadline / over 2 s | {over1} / {over2} |\n')


def flood(app, seconds, clients, paths, stop_event=None):
    """Runs heavy clients and a light probe; returns (accepted job ids, heavy codes, light latencies, failures,
    unanswered heavy requests). Unanswered requests count as [refused, lost], failures as [refused, lost, answered
    other than 200]: refused when the connection was refused (the port is closed: the request never reached the
    app), lost when it was reset or timed out (it may have reached the app and got no answer)."""
    end = time.time() + seconds
    stop = stop_event or threading.Event()
    lock = threading.Lock()
    accepted, codes, latencies, light_failures, unanswered = [], {}, [], [0, 0, 0], [0, 0]

    def heavy():
        while time.time() < end and not stop.is_set():
            try:
                status, body = request('POST', app.port, '/api/options/monte-carlo', dict(OPTION, paths=paths),
                                       timeout=60)
            except OSError as ex:
                with lock:
                    unanswered[0 if isinstance(ex, ConnectionRefusedError) else 1] += 1
                time.sleep(0.2)
                continue
            with lock:
                codes[status] = codes.get(status, 0) + 1
                if status == 202:
                    accepted.append(json.loads(body)['id'])
            if status == 503:
                time.sleep(0.5)

    def light():
        while time.time() < end and not stop.is_set():
            started = time.time()
            try:
                status, _ = request('POST', app.port, '/api/options/price', {"options": [OPTION]}, timeout=30)
                with lock:
                    if status == 200:
                        latencies.append(time.time() - started)
                    else:
                        light_failures[2] += 1
            except OSError as ex:
                with lock:
                    light_failures[0 if isinstance(ex, ConnectionRefusedError) else 1] += 1
            time.sleep(0.05)

    threads = [threading.Thread(target=heavy, daemon=True) for _ in range(clients)]
    threads.append(threading.Thread(target=light, daemon=True))
    for t in threads:
        t.start()
    return threads, accepted, codes, latencies, light_failures, unanswered


def poll_jobs(app, ids, limit_seconds):
    states, reasons = {}, {}
    deadline = time.time() + limit_seconds
    pending = list(ids)
    while pending and time.time() < deadline:
        still = []
        for job in pending:
            try:
                status, body = request('GET', app.port, f'/api/options/monte-carlo/{job}', timeout=10)
            except OSError:
                still.append(job)
                continue
            state = json.loads(body).get('status') if status == 200 else f'HTTP {status}'
            if state in ('RUNNING', 'QUEUED'):
                still.append(job)
            else:
                states[state] = states.get(state, 0) + 1
                if state == 'FAILED':
                    error = json.loads(body).get('error', '')
                    reasons[error[:80]] = reasons.get(error[:80], 0) + 1
        pending = still
        if pending:
            time.sleep(1)
    if pending:
        states['still RUNNING at the end of polling'] = len(pending)
    return states, reasons


def job_outcomes(log, accepted):
    """Counts how each accepted job ended, from the app's log lines 'Monte Carlo job <id> DONE|FAILED: reason'."""
    ends = {m.group(1): (m.group(2) + (': ' + m.group(3).strip(' :')[:70] if m.group(2) == 'FAILED' else ''))
            for m in re.finditer(r'Monte Carlo job ([0-9a-f-]{36}) (DONE|FAILED)(.*)', log)}
    outcomes = {}
    for job in accepted:
        key = ends.get(job, 'NO RECORD')
        outcomes[key] = outcomes.get(key, 0) + 1
    return outcomes


def run_flood(args, app):
    threads, accepted, codes, latencies, failures, unanswered = flood(app, args.seconds, args.clients, args.paths)
    for t in threads:
        t.join()
    states, reasons = poll_jobs(app, accepted, args.poll_seconds)
    ended = job_outcomes(app.log_text(), accepted)
    out = (f'### flood: {args.clients} clients of {args.paths:,}-path jobs for {args.seconds} s + light probe\n\n'
           '| what | result |\n| --- | --- |\n' + summarize_light(latencies, sum(failures)) +
           f'| heavy answers | {dict(sorted(codes.items()))}, {sum(unanswered)} unanswered |\n'
           f'| accepted jobs, as polled (404: finished and evicted from the store) | {len(accepted)}: {states} |\n'
           f'| accepted jobs, as the app logged their end | {ended} |\n')
    if reasons:
        out += f'| failure reasons | {reasons} |\n'
    return out


def run_bodies(args, app):
    results = []
    lock = threading.Lock()
    size = args.megabytes * 1024 * 1024

    def send():
        # A raw socket: the server answers 413 and closes before the body is sent, and the answer must still be
        # read after the send fails.
        started = time.time()
        s = socket.create_connection(('127.0.0.1', app.port), timeout=120)
        try:
            s.sendall(b'POST /api/options/price HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n'
                      + f'Content-Length: {size + 14}\r\n\r\n'.encode() + b'{"options":[')
            chunk = b' ' * 65536
            for _ in range(size // len(chunk)):
                s.sendall(chunk)
            s.sendall(b']}')
        except OSError:
            pass
        try:
            head = s.recv(4096).decode(errors='replace')
            status = int(head.split()[1]) if head.startswith('HTTP/') else 'no answer'
        except OSError as ex:
            status = type(ex).__name__
        finally:
            s.close()
        with lock:
            results.append((status, time.time() - started))

    threads = [threading.Thread(target=send) for _ in range(args.count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _, metric = request('GET', app.management, '/actuator/metrics/jvm.memory.used?tag=area:heap')
    heap = json.loads(metric)['measurements'][0]['value'] / 2**20
    return (f'### bodies: {args.count} concurrent bodies of {args.megabytes} MB\n\n| what | result |\n| --- | --- |\n'
            f'| answers (status, seconds) | {[(s, round(t, 2)) for s, t in results]} |\n'
            f'| heap used after | {heap:.0f} MiB |\n')


def run_slowbody(args, app):
    stop = threading.Event()
    opened = [0]
    slow_answers = {}
    lock = threading.Lock()

    def slow():
        while not stop.is_set():
            try:
                s = socket.create_connection(('127.0.0.1', app.port), timeout=10)
                s.settimeout(0.01)
                s.sendall(b'POST /api/options/price HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
                          b'Content-Length: 100000\r\n\r\n')
                with lock:
                    opened[0] += 1
                answer = None
                while not stop.is_set() and answer is None:
                    s.sendall(b' ')
                    stop.wait(args.interval)
                    try:
                        head = s.recv(64)
                        answer = head.split(b' ')[1].decode() if head.startswith(b'HTTP/') else 'closed'
                    except socket.timeout:
                        pass
                if answer:
                    with lock:
                        slow_answers[answer] = slow_answers.get(answer, 0) + 1
                s.close()
            except OSError as ex:
                with lock:
                    key = 'closed (' + type(ex).__name__ + ')'
                    slow_answers[key] = slow_answers.get(key, 0) + 1
                stop.wait(args.interval)

    threads = [threading.Thread(target=slow, daemon=True) for _ in range(args.connections)]
    for t in threads:
        t.start()
    time.sleep(3)
    latencies, failures, health = [], [0], []
    end = time.time() + args.seconds
    while time.time() < end:
        started = time.time()
        try:
            status, _ = request('POST', app.port, '/api/options/price', {"options": [OPTION]}, timeout=10)
            (latencies.append(time.time() - started) if status == 200 else failures.__setitem__(0, failures[0] + 1))
        except OSError:
            failures[0] += 1
        started = time.time()
        try:
            health.append((request('GET', app.management, '/actuator/health', timeout=10)[0], time.time() - started))
        except OSError:
            health.append(('timeout', time.time() - started))
        time.sleep(0.5)
    stop.set()
    bad_health = sum(1 for s, _ in health if s != 200)
    return (f'### slow bodies: {args.connections} connections sending one byte every {args.interval} s, '
            f'{args.seconds} s\n\n'
            f'| what | result |\n| --- | --- |\n| slow connections opened | {opened[0]} |\n'
            f'| answers to the slow connections | {dict(sorted(slow_answers.items()))} |\n' +
            summarize_light(latencies, failures[0]) +
            f'| health probes | {len(health)}, {bad_health} not 200, max {max(t for _, t in health) * 1000:.0f} ms |\n')


def run_startup(args, app):
    """App() returned once /actuator/health answered 200: readiness is UP. The first price request then, and nine more."""
    times = []
    for _ in range(10):
        started = time.time()
        status, _ = request('POST', app.port, '/api/options/price', {"options": [OPTION]}, timeout=60)
        times.append((status, round((time.time() - started) * 1000)))
    return ('### startup: price requests right after readiness went UP\n\n| what | result |\n| --- | --- |\n'
            f'| first request | {times[0][0]}, {times[0][1]} ms |\n'
            f'| the next nine (status, ms) | {times[1:]} |\n')


def run_sigterm(args, app):
    stop = threading.Event()
    threads, accepted, codes, latencies, failures, unanswered = flood(app, args.seconds + 60, args.clients,
                                                                        args.paths, stop)
    time.sleep(args.seconds)
    signalled = time.time()
    app.process.send_signal(signal.SIGTERM)
    try:
        app.process.wait(120)
    except subprocess.TimeoutExpired:
        app.process.kill()
    exit_seconds = time.time() - signalled
    stop.set()
    for t in threads:
        t.join(5)
    outcomes = job_outcomes(app.log_text(), accepted)
    return (f'### SIGTERM after {args.seconds} s of the flood ({args.clients} clients, {args.paths:,} paths)\n\n'
            f'| what | result |\n| --- | --- |\n| SIGTERM to exit | {exit_seconds:.1f} s (exit code '
            f'{app.process.returncode}) |\n| heavy answers | {dict(sorted(codes.items()))} |\n'
            f'| connections refused (after SIGTERM the port closes, as intended) | {unanswered[0]} heavy, '
            f'{failures[0]} light |\n'
            f'| requests lost (reset or timed out without an answer) | {unanswered[1]} heavy, {failures[1]} light |\n'
            f'| light answers other than 200 | {failures[2]} |\n'
            f'| accepted jobs | {len(accepted)}: {outcomes} |\n')


def empty_options_body(limit=1024 * 1024):
    head, tail = b'{"options":[', b']}'
    n = (limit - len(head) - len(tail) + 1) // 3
    return head + b','.join([b'{}'] * n) + tail


def heap_mib(app):
    _, metric = request('GET', app.management, '/actuator/metrics/jvm.memory.used?tag=area:heap', timeout=10)
    return json.loads(metric)['measurements'][0]['value'] / 2**20


def run_amplify(args, app):
    body = empty_options_body()
    for _ in range(3):  # warm the path once, so the first measured answer is not class loading
        request('POST', app.port, '/api/options/price', body, timeout=60)
    before = heap_mib(app)
    results, peak, lock, done = [], [before], threading.Lock(), threading.Event()

    def send():
        started = time.time()
        try:
            status, text = request('POST', app.port, '/api/options/price', body, timeout=120)
            with lock:
                results.append((status, len(text.encode()), time.time() - started))
        except OSError as ex:
            with lock:
                results.append((type(ex).__name__, 0, time.time() - started))

    def sample_heap():
        while not done.is_set():
            try:
                peak[0] = max(peak[0], heap_mib(app))
            except OSError:
                pass
            done.wait(0.1)

    probe_latencies, probe_failures = [], [0]

    def probe():
        while not done.is_set():
            started = time.time()
            try:
                status, _ = request('POST', app.port, '/api/options/price', {"options": [OPTION]}, timeout=30)
                (probe_latencies.append(time.time() - started) if status == 200
                 else probe_failures.__setitem__(0, probe_failures[0] + 1))
            except OSError:
                probe_failures[0] += 1
            done.wait(0.05)

    watchers = [threading.Thread(target=sample_heap, daemon=True), threading.Thread(target=probe, daemon=True)]
    for t in watchers:
        t.start()
    end = time.time() + args.seconds
    rounds = 0
    while time.time() < end:
        senders = [threading.Thread(target=send) for _ in range(args.count)]
        for t in senders:
            t.start()
        for t in senders:
            t.join()
        rounds += 1
    done.set()
    for t in watchers:
        t.join()
    after = heap_mib(app)
    statuses = {}
    for status, _, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    return (f'### amplify: {args.count} concurrent 1 MB bodies of {len(body) // 3:,} empty options, repeated for '
            f'{args.seconds} s ({rounds} rounds)\n\n| what | result |\n| --- | --- |\n'
            f'| answers | {len(results)}: {statuses} |\n'
            f'| answer size max | {max(r[1] for r in results):,} bytes |\n'
            f'| answer time p50 / max | {percentile([r[2] for r in results], 0.5) * 1000:.0f} / '
            f'{max(r[2] for r in results) * 1000:.0f} ms |\n' +
            summarize_light(probe_latencies, probe_failures[0]) +
            f'| heap used before / highest / after | {before:.0f} / {peak[0]:.0f} / {after:.0f} MiB |\n')


def run_batches(args, app):
    body = json.dumps({"options": [OPTION] * 4096}).encode()
    end = time.time() + args.seconds
    lock = threading.Lock()
    by_status = {}

    def client():
        while time.time() < end:
            started = time.time()
            try:
                status, _ = request('POST', app.port, '/api/options/price', body, timeout=60)
            except OSError as ex:
                status = type(ex).__name__
            with lock:
                by_status.setdefault(status, []).append(time.time() - started)
            if status == 503:
                time.sleep(0.05)

    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = ''.join(f'| {status} | {len(v)} answers, p50 {percentile(v, 0.5) * 1000:.0f} ms, p99 '
                   f'{percentile(v, 0.99) * 1000:.0f} ms, max {max(v) * 1000:.0f} ms |\n'
                   for status, v in sorted(by_status.items(), key=lambda kv: str(kv[0])))
    return (f'### batches: {args.clients} clients posting 4,096-option batches for {args.seconds} s\n\n'
            f'| status | answers and latency |\n| --- | --- |\n' + rows)


def run_fairness(args, app):
    end = time.time() + args.seconds
    lock = threading.Lock()
    counts = {'greedy': {}, 'polite': {}}

    def client(name, polite):
        while time.time() < end:
            try:
                connection = http.client.HTTPConnection('127.0.0.1', app.port, timeout=60)
                connection.request('POST', '/api/options/monte-carlo', body=json.dumps(dict(OPTION, paths=args.paths)),
                                   headers={'Content-Type': 'application/json', 'X-Tenant-Id': name})
                response = connection.getresponse()
                response.read()
                status, retry = response.status, response.getheader('Retry-After')
                connection.close()
            except OSError as ex:
                status, retry = type(ex).__name__, None
            with lock:
                counts[name][status] = counts[name].get(status, 0) + 1
            if polite and status in (429, 503):
                time.sleep(float(retry or 1))
            elif polite:
                time.sleep(0.1)

    threads = [threading.Thread(target=client, args=('greedy', False)) for _ in range(args.clients)]
    threads.append(threading.Thread(target=client, args=('polite', True)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return (f'### fairness: {args.clients} greedy threads and 1 polite client, {args.paths:,}-path jobs, '
            f'{args.seconds} s\n\n| client | answers |\n| --- | --- |\n'
            f'| greedy (no pause) | {dict(sorted(counts["greedy"].items(), key=str))} |\n'
            f'| polite (waits Retry-After) | {dict(sorted(counts["polite"].items(), key=str))} |\n')


def read_response(sock_file):
    status_line = sock_file.readline()
    if not status_line:
        return None
    headers = {}
    while True:
        line = sock_file.readline()
        if line in (b'\r\n', b'\n', b''):
            break
        name, _, value = line.decode(errors='replace').partition(':')
        headers[name.strip().lower()] = value.strip()
    if 'content-length' in headers:
        sock_file.read(int(headers['content-length']))
    elif headers.get('transfer-encoding') == 'chunked':
        while True:
            size = int(sock_file.readline().strip() or b'0', 16)
            sock_file.read(size + 2)
            if size == 0:
                break
    return int(status_line.split()[1]), headers


def run_keepalive(args, app):
    get = b'GET /api/pools HTTP/1.1\r\nHost: localhost\r\n\r\n'
    connections = []
    for _ in range(args.connections):
        s = socket.create_connection(('127.0.0.1', app.port), timeout=30)
        f = s.makefile('rb')
        s.sendall(get)
        read_response(f)
        connections.append((s, f))
    signalled = time.time()
    app.process.send_signal(signal.SIGTERM)
    time.sleep(0.5)  # the drain has begun (a first request right at the signal would just be served as before)
    outcomes = {}
    for s, f in connections:
        try:
            s.sendall(get)
            answer = read_response(f)
            key = (f'answered {answer[0]}' + (' with Connection: close' if answer[1].get('connection') == 'close'
                                              else '')) if answer else 'lost (sent, no answer)'
        except (BrokenPipeError, ConnectionResetError) as ex:
            key = f'closed before the request ({type(ex).__name__})'
        except OSError as ex:
            key = f'lost ({type(ex).__name__})'
        outcomes[key] = outcomes.get(key, 0) + 1
        s.close()
    try:
        app.process.wait(60)
    except subprocess.TimeoutExpired:
        app.process.kill()
    return (f'### keepalive: {args.connections} kept-alive connections, SIGTERM, then the next request on each\n\n'
            f'| what | result |\n| --- | --- |\n| next request on each | {outcomes} |\n'
            f'| SIGTERM to exit | {time.time() - signalled:.1f} s (exit code {app.process.returncode}) |\n')


def main():
    argv = sys.argv[1:]
    extra = []
    if '--' in argv:
        extra = argv[argv.index('--') + 1:]
        argv = argv[:argv.index('--')]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('scenario', choices=['flood', 'bodies', 'slowbody', 'sigterm', 'amplify', 'batches',
                                             'fairness', 'keepalive', 'startup'])
    parser.add_argument('--seconds', type=int, default=None)
    parser.add_argument('--clients', type=int, default=32)
    parser.add_argument('--paths', type=int, default=64 * 1024 * 1024)
    parser.add_argument('--poll-seconds', type=int, default=600)
    parser.add_argument('--count', type=int, default=None)
    parser.add_argument('--megabytes', type=int, default=100)
    parser.add_argument('--connections', type=int, default=250)
    parser.add_argument('--interval', type=float, default=5)
    parser.add_argument('--out', default=None)
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = {'flood': 60, 'slowbody': 40, 'sigterm': 20, 'amplify': 20, 'batches': 30,
                        'fairness': 60}.get(args.scenario, 0)
    if args.count is None:
        args.count = 1 if args.scenario == 'amplify' else 4
    if args.scenario == 'keepalive':
        args.connections = args.connections if args.connections != 250 else 16
    if args.scenario == 'fairness':
        args.clients = args.clients if args.clients != 32 else 8
        args.paths = args.paths if args.paths != 64 * 1024 * 1024 else 16 * 1024 * 1024
    app = App(extra)
    try:
        started = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
        text = {'flood': run_flood, 'bodies': run_bodies, 'slowbody': run_slowbody, 'sigterm': run_sigterm,
                'amplify': run_amplify, 'batches': run_batches, 'fairness': run_fairness,
                'keepalive': run_keepalive, 'startup': run_startup}[args.scenario](args, app)
        text += f'\n({started}, {os.cpu_count()} CPUs, app arguments: {" ".join(extra) or "none"})\n'
    finally:
        app.stop()
    print(text)
    if args.out:
        with open(args.out, 'a') as f:
            f.write(text + '\n')


if __name__ == '__main__':
    main()
