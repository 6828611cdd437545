import { ChildGroup, type LogLine } from './child-group.js';

/** How long a service may take to print its ready line (tsx compiles it on start). */
const START_TIMEOUT_MS = 60_000;
/** How long a stopping service gets before SIGKILL. */
const STOP_GRACE_MS = 20_000;

/** A service started as an operator would (`npm run start:<service>`), with its log lines. */
export interface ServiceProcess {
  /** The JSON log lines printed so far. */
  lines: LogLine[];
  /** The `url` of the first line with this message (`gateway listening`, ...). */
  urlOf(message: string): string;
  /** SIGTERM, as an orchestrator stops a replica; whether it ended within the grace time. */
  stop(): Promise<boolean>;
}

/**
 * Services started as their own processes, in their own process groups, all stopped (SIGTERM,
 * then SIGKILL after 20 s) by `stopAll`.
 */
export class ServiceProcesses {
  private readonly started: ChildGroup[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Starts `npm run <script>` and waits for the log line that says it is ready. */
  async start(script: string, ready: string, env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    const group = new ChildGroup(script, 'npm', ['run', script, '--silent'], {
      env: { ...this.env, ...env },
    });
    this.started.push(group);
    await group.waitForLog(ready, START_TIMEOUT_MS);
    return {
      lines: group.lines,
      urlOf: (message) => String(group.lines.find((line) => line.msg === message)?.url),
      stop: () => group.terminate(STOP_GRACE_MS),
    };
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.map((group) => group.terminate(STOP_GRACE_MS)));
  }
}
