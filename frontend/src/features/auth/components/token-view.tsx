import { CopyButton } from "@/components/ui/copy-button";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useApiToken } from "../api/get-token";

export function cliExample(server: string, token: string): string {
  return [
    `export SPLAYLAB_SERVER=${server}`,
    `export SPLAYLAB_TOKEN=${token}`,
    "./splaylab submit app.lua --nodes 10 --time 30 --follow",
  ].join("\n");
}

export function TokenView() {
  const tokenQuery = useApiToken();
  if (tokenQuery.isPending) return <Spinner />;
  if (tokenQuery.isError) return <ErrorMessage error={tokenQuery.error} title="Cannot load your token." />;

  const { token } = tokenQuery.data;
  const example = cliExample(window.location.origin, token);
  return (
    <div className="token-view">
      <section className="card">
        <h2>Your API token</h2>
        <p className="muted">The command-line client sends this token. Keep it private.</p>
        <div className="copy-row">
          <code className="token" data-testid="api-token">
            {token}
          </code>
          <CopyButton text={token} />
        </div>
      </section>
      <section className="card">
        <h2>Submit from a terminal</h2>
        <pre className="cli-example">{example}</pre>
        <CopyButton text={example} label="Copy commands" />
      </section>
    </div>
  );
}
