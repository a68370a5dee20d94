; Definitions in Python. A decorated definition starts at its first decorator, as
; Python's ast has it: its pattern comes first, and of two matches naming the same
; name node the first pattern's wins. Functions in a class are made methods by the
; code, from their nesting.

(decorated_definition
  definition: (class_definition name: (identifier) @name)) @definition.class

(decorated_definition
  definition: (function_definition name: (identifier) @name)) @definition.function

(class_definition name: (identifier) @name) @definition.class

(function_definition name: (identifier) @name) @definition.function

(type_alias_statement left: (type (identifier) @name)) @definition.type

; Names bound at the top of a module or a class body (capitals make a constant).
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.variable))

(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.variable)))
