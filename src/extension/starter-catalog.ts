// The tools.yaml that "Create tools.yaml" writes: small, safe to run, and
// showing a param, the session store and an override.
export const STARTER_CATALOG = `# MCC tool catalog. Agents in this window call these tools through MCC.
# Format: see "Catalog format" in the MCC extension README.
groups: [public]

tools:
  - name: hello
    description: Greets someone, and says who called.
    params:
      - name: who
        description: Who to greet
        example: world
    exec: 'echo "Hello, "{{ who | quote }}"! (called by $MCC_CTX_USER)"'

  - name: show_session
    description: Shows the session store as a shell tool sees it (set variables with set_session first).
    exec: 'echo "$MCC_CTX"'

  - name: list_files
    description: Lists the files of a folder in the workspace.
    params:
      - name: path
        default: "."
    exec: 'ls -la -- {{ path | quote }}'
`;
