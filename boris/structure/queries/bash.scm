; Definitions in Bash: its functions.

(function_definition name: (word) @name) @definition.function
