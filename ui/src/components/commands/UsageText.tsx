/**
 * A usage line cut into its pieces, in order and with nothing lost (joined they give the text back):
 * runs of blanks, placeholders whole (`<destination player>`, `[sound id]`) and the words between.
 */
export function usageTokens(text: string): string[] {
  return text.match(/\s+|<[^<>]*>|\[[^[\]]*\]|[^\s<[]+|[<[]/g) ?? [];
}

/**
 * A usage or example line that wraps only between its words: each word and each placeholder is one
 * unbreakable piece, so `<destination player>` never splits across lines (nor does `:tp`).
 */
export function UsageText({ text }: { text: string }) {
  return (
    <>
      {usageTokens(text).map((t, i) =>
        /^\s+$/.test(t) ? (
          t
        ) : (
          <span key={i} className="whitespace-nowrap" data-usage-token="">
            {t}
          </span>
        ),
      )}
    </>
  );
}
