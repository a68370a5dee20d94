; Definitions in JavaScript (TypeScript and TSX add theirs to these).

(class_declaration name: (_) @name) @definition.class

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

(method_definition name: (_) @name) @definition.method

; A function given a name by a top-level declaration: const f = () => {}.
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))

(program
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))

; Other top-level bindings: const is a constant, let and var are variables.
(program
  (lexical_declaration
    "const"
    (variable_declarator name: (identifier) @name) @definition.constant))

(program
  (export_statement
    (lexical_declaration
      "const"
      (variable_declarator name: (identifier) @name) @definition.constant)))

(program
  (lexical_declaration
    "let"
    (variable_declarator name: (identifier) @name) @definition.variable))

(program
  (export_statement
    (lexical_declaration
      "let"
      (variable_declarator name: (identifier) @name) @definition.variable)))

(program
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))

(program
  (export_statement
    (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)))
