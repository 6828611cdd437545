import { spawn, type ChildProcess } from 'node:child_process';

/** A service started as an operator would (`npm run start:<service>`), with its log lines. */
export interface ServiceProcess {
  child: ChildProcess;
  /** The JSON log lines printed so far. */
  lines: Array<Record<string, unknown>>;
  /** The `url` of the first line with this message (`gateway listening`, ...). */
  urlOf(message: string): string;
}

/**
 * Services started as their own processes, in their own process groups, all stopped (SIGTERM,
 * then SIGKILL after 20 s) by `stopAll`.
 */
export class ServiceProcesses {
  readonly started: ServiceProcess[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Starts `npm run <script>` and waits for the log line that says it is ready. */
  start(script: string, ready: string, env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    const child = spawn('npm', ['run', script, '--silent'], {
      env: { ...this.env, ...env },
      detached: true,
      stdio: 'pipe',
    });
    const lines: ServiceProcess['lines'] = [];
    const started: ServiceProcess = {
      child,
      lines,
      urlOf: (message) => String(lines.find((line) => line.msg === message)?.url),
    };
    this.started.push(started);
    let output = '';
    return new Promise((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      let pending = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        const complete = pending.split('\n');
        pending = complete.pop() ?? '';
        for (const line of complete) {
          output += `${line}\n`;
          try {
            const parsed = JSON.parse(line) as Record<string, unknown>;
            lines.push(parsed);
            if (parsed.msg === ready) resolve(started);
          } catch {
            // not a log line
          }
        }
      });
      child.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${output}`)));
    });
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      this.started.map(async ({ child }) => {
        if (child.pid === undefined || child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(-child.pid, 'SIGTERM');
        const kill = setTimeout(() => {
          if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
        }, 20_000);
        await exited;
        clearTimeout(kill);
      }),
    );
  }
}
