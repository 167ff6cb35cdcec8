export { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection } from "@codemirror/view";
export { EditorState } from "@codemirror/state";
export { StreamLanguage, syntaxHighlighting, defaultHighlightStyle, HighlightStyle, bracketMatching } from "@codemirror/language";
export { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
export { linter, lintGutter, setDiagnostics } from "@codemirror/lint";
export { tags } from "@lezer/highlight";
