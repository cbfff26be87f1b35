
BcJÒcNc