// Relevance of `search` on a catalog shaped like real ones: many near-duplicate
// tools (the same action for every cloud, cluster or region) and a few unique
// ones. Each query names the tool a user means; it must be in the top 3.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { searchTools } from '../../../src/core/search/tool-search';
import type { ExecTool } from '../../../src/core/catalog/types';
import { execTool, param } from '../catalog/tooldef';

const PROVIDERS = [
  'aws', 'gcp', 'azure', 'oci', 'ibm', 'alibaba', 'hetzner', 'linode', 'vultr', 'scaleway',
  'ovh', 'upcloud', 'exoscale', 'civo', 'equinix', 'rackspace', 'tencent', 'huawei', 'yandex', 'cloudsigma',
  'ionos', 'kamatera', 'contabo', 'netcup', 'leaseweb', 'packet', 'joyent', 'softlayer', 'fly', 'render',
  'railway', 'heroku', 'netlify', 'vercel', 'fastly', 'akamai', 'backblaze', 'wasabi', 'digitalocean', 'openstack',
];

const ACTIONS: Array<[string, string]> = [
  ['restart_deployment', 'Restarts a deployment'],
  ['list_instances', 'Lists the compute instances'],
  ['start_instance', 'Starts a stopped instance'],
  ['stop_instance', 'Stops a running instance'],
  ['create_snapshot', 'Creates a disk snapshot'],
  ['delete_snapshot', 'Deletes a disk snapshot'],
  ['list_buckets', 'Lists object storage buckets'],
  ['upload_object', 'Uploads a file to a bucket'],
  ['download_object', 'Downloads a file from a bucket'],
  ['get_billing', 'Shows the current billing period costs'],
  ['list_dns_records', 'Lists the DNS records of a zone'],
  ['create_dns_record', 'Adds a DNS record to a zone'],
  ['rotate_keys', 'Rotates the API access keys'],
  ['list_regions', 'Lists the available regions'],
  ['scale_deployment', 'Scales a deployment to a number of replicas'],
  ['tail_logs', 'Follows the service logs'],
  ['list_load_balancers', 'Lists the load balancers'],
  ['attach_volume', 'Attaches a block volume to an instance'],
  ['detach_volume', 'Detaches a block volume from an instance'],
  ['list_firewall_rules', 'Lists the firewall rules'],
  ['open_port', 'Opens a port in the firewall'],
  ['reboot_instance', 'Reboots an instance'],
  ['resize_instance', 'Changes the size of an instance'],
  ['list_users', 'Lists the account users'],
  ['list_databases', 'Lists the managed databases'],
];

// The one-of-a-kind tools users look for among the duplicates.
const UNIQUE: ExecTool[] = [
  execTool('kubectl_rollout', [param('deployment'), param('namespace', { default: 'default' })], { groups: ['k8s'], description: 'Restarts a Kubernetes deployment, pod by pod.' }),
  execTool('get_pods', [param('namespace', { default: 'default' })], { groups: ['k8s'], description: 'Lists the Kubernetes pods of a namespace and their status.' }),
  execTool('decode_jwt', [param('token', { description: 'The JSON Web Token' })], { groups: ['dev'], description: 'Decodes a JWT and shows its claims.' }),
  execTool('tls_expiry', [param('host')], { groups: ['net'], description: 'Shows when the TLS certificate of a host expires.' }),
  execTool('traceroute', [param('host')], { groups: ['net'], description: 'Traces the network route to a host.' }),
  execTool('ping', [param('host'), param('count', { type: 'int', default: 4 })], { groups: ['net'], description: 'Sends ICMP echo requests to a host.' }),
  execTool('psql_query', [param('sql', { description: 'The SQL statement' })], { groups: ['db'], description: 'Runs a SQL query against PostgreSQL.' }),
  execTool('vacuum_table', [param('table')], { groups: ['db'], description: 'Runs VACUUM ANALYZE on a PostgreSQL table.' }),
  execTool('redis_flush', [], { groups: ['cache'], description: 'Flushes every key from the Redis cache.' }),
  execTool('git_blame', [param('file'), param('line', { type: 'int' })], { groups: ['dev'], description: 'Shows who last changed a line of a file in git.' }),
  execTool('git_bisect', [param('good'), param('bad')], { groups: ['dev'], description: 'Finds the commit that introduced a bug by binary search.' }),
  execTool('disk_usage', [param('path', { default: '.' })], { groups: ['host'], description: 'Shows the disk usage of a folder, largest first.' }),
  execTool('top_processes', [], { groups: ['host'], description: 'Lists the processes using the most CPU and memory.' }),
  execTool('cron_list', [], { groups: ['host'], description: 'Lists the crontab entries of the current user.' }),
  execTool('convert_timezone', [param('time'), param('to')], { groups: ['util'], description: 'Converts a time between time zones.' }),
  execTool('uuid', [], { groups: ['util'], description: 'Generates a random UUID.' }),
  execTool('word_count', [param('file')], { groups: ['util'], description: 'Counts the words, lines and characters of a file.' }),
  execTool('terraform_plan', [param('dir')], { groups: ['iac'], description: 'Runs terraform plan and shows the changes.' }),
  execTool('helm_upgrade', [param('release'), param('chart')], { groups: ['k8s'], description: 'Upgrades a Helm release to a new chart version.' }),
  execTool('slack_notify', [param('channel'), param('text')], { groups: ['chat'], description: 'Posts a message to a Slack channel.' }),
  execTool('pagerduty_ack', [param('incident')], { groups: ['oncall'], description: 'Acknowledges a PagerDuty incident.' }),
  execTool('jira_create', [param('summary'), param('project')], { groups: ['tickets'], description: 'Opens a new Jira issue.' }),
  execTool('nginx_reload', [], { groups: ['web'], description: 'Checks the nginx config and reloads it.' }),
  execTool('docker_prune', [], { groups: ['host'], description: 'Removes unused Docker images, containers and volumes.' }),
  execTool('ssh_keyscan', [param('host')], { groups: ['net'], description: 'Fetches the SSH host keys of a server.' }),
];

function catalog(): ExecTool[] {
  const dupes = PROVIDERS.flatMap((provider) =>
    ACTIONS.map(([name, what]) =>
      execTool(name, [param('region', { default: 'default' })], { groups: [provider], description: `${what} on ${provider}.` }),
    ),
  );
  return [...dupes, ...UNIQUE];
}

const QUERIES: Array<[string, string]> = [
  ['restart kubernetes deployment', 'k8s.kubectl_rollout'],
  ['list kubernetes pods', 'k8s.get_pods'],
  ['decode a jwt token', 'dev.decode_jwt'],
  ['when does the tls certificate expire', 'net.tls_expiry'],
  ['trace network route', 'net.traceroute'],
  ['ping a host', 'net.ping'],
  ['run sql query postgres', 'db.psql_query'],
  ['vacuum a postgresql table', 'db.vacuum_table'],
  ['flush redis cache', 'cache.redis_flush'],
  ['who changed this line git', 'dev.git_blame'],
  ['find the commit that introduced a bug', 'dev.git_bisect'],
  ['disk usage of a folder', 'host.disk_usage'],
  ['processes using most cpu', 'host.top_processes'],
  ['upgrade helm release', 'k8s.helm_upgrade'],
  ['post message to slack', 'chat.slack_notify'],
  ['acknowledge pagerduty incident', 'oncall.pagerduty_ack'],
  ['reload nginx', 'web.nginx_reload'],
  ['remove unused docker images', 'host.docker_prune'],
  ['restart deployment on azure', 'azure.restart_deployment'],
  ['list dns records hetzner', 'hetzner.list_dns_records'],
];

void describe('search relevance on a 1,000-tool catalog with near-duplicates', () => {
  const tools = catalog();

  void test('the catalog is what the test claims', () => {
    assert.equal(tools.length, PROVIDERS.length * ACTIONS.length + UNIQUE.length);
    assert.ok(tools.length >= 1000, `${tools.length} tools`);
    assert.equal(QUERIES.length, 20);
  });

  for (const [query, expected] of QUERIES) {
    void test(`"${query}" finds ${expected} in the top 3`, () => {
      const top = searchTools(tools, query, { limit: 3 }).hits.map((h) => h.tool.key);
      assert.ok(top.includes(expected), `top 3: ${top.join(', ')}`);
    });
  }

  void test('hits are capped: 10 by default, the limit when given, never more than 100', () => {
    const broad = searchTools(tools, 'instance');
    assert.equal(broad.hits.length, 10);
    assert.ok(broad.total > 100, `${broad.total} tools mention instances`);
    assert.equal(searchTools(tools, 'instance', { limit: 25 }).hits.length, 25);
    assert.equal(searchTools(tools, 'instance', { limit: 1000 }).hits.length, 100);
    assert.equal(searchTools(tools, 'instance', { limit: 0 }).hits.length, 1);
  });

  void test('a two-letter word matches whole words only, not every word it starts', () => {
    // "li" would prefix-match every "lists"/"linode" tool; as a whole word it matches none.
    assert.equal(searchTools(tools, 'li').total, 0);
    assert.ok(searchTools(tools, 'lis').total > 100, 'three letters are a prefix');
  });

  void test('a tool matching every word outranks near-duplicates that match two, whatever their number', () => {
    const hits = searchTools(tools, 'restart kubernetes deployment').hits;
    assert.equal(hits[0]?.tool.key, 'k8s.kubectl_rollout');
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
  });
});
