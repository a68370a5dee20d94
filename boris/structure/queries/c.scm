; Definitions in C. A declarator (@declarator) holds its name somewhere inside
; (a pointer, a function, parentheses): the code finds it.

(function_definition declarator: (_) @declarator) @definition.function

(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct

(union_specifier name: (type_identifier) @name body: (_)) @definition.struct

(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

(type_definition declarator: (_) @declarator) @definition.type

(preproc_def name: (identifier) @name) @definition.constant

(preproc_function_def name: (identifier) @name) @definition.function

; Variables defined at the top (not extern ones: the code leaves them out).
(translation_unit
  (declaration declarator: (init_declarator declarator: (_) @declarator)) @definition.variable)

(translation_unit
  (declaration declarator: [(identifier) (array_declarator) (pointer_declarator)] @declarator) @definition.variable)
