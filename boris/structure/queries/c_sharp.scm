; Definitions in C#.

(class_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(struct_declaration name: (identifier) @name) @definition.struct

(interface_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(delegate_declaration name: (identifier) @name) @definition.type

(namespace_declaration name: (_) @name) @definition.module

(file_scoped_namespace_declaration name: (_) @name) @definition.module

(method_declaration name: (identifier) @name) @definition.method

(constructor_declaration name: (identifier) @name) @definition.method

(destructor_declaration "~" @prefix name: (identifier) @name) @definition.method

; Operators, named as written after their keywords (@prefix): operator +,
; implicit operator decimal.
(operator_declaration "operator" @prefix operator: _ @name) @definition.method

(conversion_operator_declaration
  ["implicit" "explicit"] @prefix
  "operator" @prefix
  type: (_) @name) @definition.method

(local_function_statement name: (identifier) @name) @definition.function
