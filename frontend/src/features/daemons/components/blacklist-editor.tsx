import { useState, type FormEvent } from "react";
import { ErrorMessage, errorText } from "@/components/ui/error-message";
import { useAddBlacklistEntry, useBlacklist, useRemoveBlacklistEntry } from "../api/blacklist";

/** The instructors' blacklist: addresses/CIDRs no node may reach, pushed to every online daemon. */
export function BlacklistEditor() {
  const list = useBlacklist();
  const add = useAddBlacklistEntry();
  const remove = useRemoveBlacklistEntry();
  const [address, setAddress] = useState("");
  const [note, setNote] = useState("");

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ address: address.trim(), note: note.trim() }, {
      onSuccess: () => {
        setAddress("");
        setNote("");
      },
    });
  };

  const own = new Set(list.data?.entries.map((e) => e.address));
  const fixed = list.data?.addresses.filter((a) => !own.has(a)) ?? [];
  return (
    <section className="card" aria-label="Blacklist" data-testid="blacklist">
      <h2>Blacklist</h2>
      <p className="muted">
        No node may connect or send to these. Always included (SPLAYLAB_BLACKLIST and the controller&apos;s own
        addresses): {fixed.length ? fixed.join(", ") : "none"}.
      </p>
      {list.isError && <ErrorMessage error={list.error} title="Cannot load the blacklist." />}
      <ul className="blacklist-entries">
        {list.data?.entries.map((e) => (
          <li key={e.id} data-testid="blacklist-entry">
            <code>{e.address}</code> {e.note && <span className="muted">{e.note}</span>}{" "}
            <button type="button" disabled={remove.isPending} onClick={() => remove.mutate(e.id)} aria-label={`Remove ${e.address}`}>
              Remove
            </button>
          </li>
        ))}
        {list.data && list.data.entries.length === 0 && <li className="muted">No entries of yours.</li>}
      </ul>
      <form className="blacklist-form" onSubmit={onSubmit}>
        <input name="address" value={address} onChange={(e) => setAddress(e.target.value)} placeholder="10.0.0.1 or 192.168.7.0/24" required aria-label="Address or CIDR" />
        <input name="note" value={note} onChange={(e) => setNote(e.target.value)} placeholder="note (optional)" aria-label="Note" />
        <button type="submit" disabled={add.isPending}>
          Add
        </button>
      </form>
      {(add.error || remove.error) && (
        <p className="form-error" role="alert">
          {errorText(add.error ?? remove.error)}
        </p>
      )}
    </section>
  );
}
