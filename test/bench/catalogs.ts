// Catalogs of any size for the bench, shaped like real ones: the same few
// actions for many providers (near-duplicates), each tool with two params,
// plus `noop` (exec: "true") and `echo_word`, which the call figures run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ACTIONS: Array<[string, string]> = [
  ['restart_deployment', 'Restarts a deployment'],
  ['list_instances', 'Lists the compute instances'],
  ['create_snapshot', 'Creates a disk snapshot'],
  ['list_buckets', 'Lists object storage buckets'],
  ['get_billing', 'Shows the current billing period costs'],
  ['list_dns_records', 'Lists the DNS records of a zone'],
  ['rotate_keys', 'Rotates the API access keys'],
  ['scale_deployment', 'Scales a deployment to a number of replicas'],
  ['tail_logs', 'Follows the service logs'],
  ['open_port', 'Opens a port in the firewall'],
];

const FIXED = `  - name: noop
    description: Does nothing and succeeds
    exec: "true"
  - name: echo_word
    description: Prints a word
    params:
      - { name: word, description: The word to print }
    exec: echo {{ word | quote }}
  - name: kubectl_rollout
    description: Restarts a Kubernetes deployment, pod by pod
    params:
      - { name: deployment }
      - { name: namespace, default: default }
    exec: echo kubectl rollout restart {{ deployment | quote }} -n {{ namespace | quote }}
`;

/** The YAML text of a catalog with `size` tools (at least the 3 fixed ones). */
export function catalogYaml(size: number): string {
  const lines = ['groups: [bench]', 'tools:', FIXED.trimEnd()];
  for (let i = 0; i < size - 3; i++) {
    const [action, what] = ACTIONS[i % ACTIONS.length];
    const provider = `p${Math.floor(i / ACTIONS.length)}`;
    lines.push(
      `  - name: ${provider}_${action}`,
      `    description: ${what} on provider ${provider}`,
      '    params:',
      '      - { name: target, description: The resource to act on }',
      '      - { name: region, default: eu-west-1 }',
      `    exec: echo ${action} {{ target | quote }} {{ region | quote }}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Writes catalogs of the given sizes into a new folder; cleanup() removes it. */
export function writeCatalogs(sizes: number[]): { paths: Map<number, string>; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcc-bench-catalogs-'));
  const paths = new Map<number, string>();
  for (const size of sizes) {
    const path = join(dir, `tools-${size}.yaml`);
    writeFileSync(path, catalogYaml(size));
    paths.set(size, path);
  }
  return { paths, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
